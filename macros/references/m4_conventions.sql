{#-
  The conventions a reference follows, as its YAML declares them (config.meta.conventions, rendered
  into m4_declared_conventions by `python -m m4agent.conventions`: dbt's graph, which holds the YAML,
  is empty in unit tests): for each name in `names`, the reading the YAML documents, or the one `flip`
  names instead (a variant of the reference, models/marts/reference_variants, docs/explain.md). A
  reading is the mapping the YAML gives it (its label and the parameters the reference's SQL reads),
  with its name added under `name`. A convention the YAML does not declare, or a flip to a reading it
  does not list, is a compile error.
-#}
{% macro m4_conventions(reference, names, flip={}) %}
    {%- set declared = m4_declared_conventions().get(reference, {}) %}
    {%- if (declared.keys() | sort) != (names | sort) %}
        {{- exceptions.raise_compiler_error(reference ~ ' reads the conventions ' ~ (names | sort | join(', '))
            ~ ' but its YAML declares ' ~ (declared.keys() | sort | join(', '))
            ~ '; run `python -m m4agent.conventions` after editing it') }}
    {%- endif %}
    {%- for name, reading in flip.items() %}
        {%- if name not in declared or reading not in declared[name]['readings'] %}
            {{- exceptions.raise_compiler_error(reference ~ ' declares no reading ' ~ reading ~ ' of ' ~ name) }}
        {%- endif %}
    {%- endfor %}
    {%- set chosen = {} %}
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
