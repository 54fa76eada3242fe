{#-
  The conventions a reference follows, read from its YAML (config.meta.conventions): for each name in
  `names`, the reading the YAML documents, or the one `flip` names instead (a variant of the reference,
  models/marts/reference_variants, docs/explain.md). A reading is the mapping the YAML gives it (its
  label and the parameters the reference's SQL reads), with its name added under `name`.
  The YAML is read from dbt's graph, which exists only once dbt runs; while dbt parses, each name maps
  to {'name': none}. The references never choose a ref() by a convention, so the parse sees the same
  dependencies either way. A flip or a name the YAML does not declare is a compile error.
-#}
{% macro m4_conventions(reference, names, flip={}) %}
    {%- set chosen = {} %}
    {%- if not execute %}
        {%- for name in names %}{% do chosen.update({name: {'name': none}}) %}{% endfor %}
        {{- return(chosen) }}
    {%- endif %}
    {%- set node = graph.nodes.get('model.m4agent.' ~ reference) %}
    {%- if node is none %}
        {{- exceptions.raise_compiler_error('m4_conventions: no model ' ~ reference) }}
    {%- endif %}
    {%- set declared = (node.config.meta or {}).get('conventions', {}) %}
    {%- if (declared.keys() | sort) != (names | sort) %}
        {{- exceptions.raise_compiler_error(reference ~ ' reads the conventions ' ~ (names | sort | join(', '))
            ~ ' but its YAML declares ' ~ (declared.keys() | sort | join(', '))) }}
    {%- endif %}
    {%- for name, reading in flip.items() %}
        {%- if name not in declared or reading not in declared[name]['readings'] %}
            {{- exceptions.raise_compiler_error(reference ~ ' declares no reading ' ~ reading ~ ' of ' ~ name) }}
        {%- endif %}
    {%- endfor %}
    {%- for name in names %}
        {%- set reading_name = flip.get(name, declared[name]['documented']) %}
        {%- set reading = {'name': reading_name} %}
        {%- do reading.update(declared[name]['readings'][reading_name]) %}
        {%- do chosen.update({name: reading}) %}
    {%- endfor %}
    {{- return(chosen) }}
{% endmacro %}


{#-
  `time_column` inside a window around `anchor`, as a reading of a window convention gives it:
  from start_hours (always included) to end_hours, included when `end` is 'closed', excluded
  when 'open'.
-#}
{% macro m4_in_window(time_column, anchor, window) -%}
    {{ time_column }} >= {{ dbt.dateadd('hour', window.start_hours, anchor) }}
        AND {{ time_column }} {{ '<' if window.end == 'open' else '<=' }} {{ dbt.dateadd('hour', window.end_hours, anchor) }}
{%- endmacro %}


{#-
  `column` as a missing-data convention's reading gives it: a missing value scored as `normal` (the
  column's normal value) when the reading's `normal` is true, or as the reading's own `value`; left
  NULL when the reading gives neither.
-#}
{% macro m4_missing_as(reading, column, normal=none) -%}
    {%- set value = normal if reading.get('normal') else reading.get('value') -%}
    {%- if value is none -%}
    {{ column }}
    {%- else -%}
    COALESCE({{ column }}, {{ value }})
    {%- endif -%}
{%- endmacro %}
