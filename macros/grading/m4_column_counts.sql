{#- One row per (comparable run, scored slot) of the plan entries `entries` (see
  m4_grading_plan_part): one pass over the merged rows (m4_merged_rows),
  compiled per group of tasks sharing a reference and its columns
  (m4_grading_plan: only their slots, their tolerances as constants), counting
  - over every agent row, what pandas infers the agent column's dtype from;
  - over the merged rows, what the numeric and timestamp comparisons need: cells
    present on both sides, agent cells that are not numbers, cells missing on
    both sides, numeric matches (|truth - agent| <= tolerance; under a boolean
    agent dtype True/False count as 1/0) and, for truth columns that can compare
    as timestamps, the agent's first value (its format), the shapes and parses of
    the agent cells, and timestamp matches (|difference| <= tolerance seconds),
    with day/month/year dates read day first when the first value is (pandas
    reads every value in the format of the first).
  Text comparisons are counted afterwards, only where they decide
  (int_grading__text_matches).
-#}
{% macro m4_column_counts(entries) %}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
{%- set plan = [] %}
{%- for task in entries if task['columns'] %}{% do plan.append(task) %}{% endfor %}
{%- if plan %}
WITH
{%- for task in plan %}
{%- set task_index = loop.index %}
cells_{{ task_index }} AS (
    SELECT
        run_number,
        truth_row,
        merged
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %}
        {%- set agent = 'agent_' ~ slot %},
        {{ agent }},
        truth_present_{{ slot }},
        truth_number_{{ slot }},
        -- an agent cell carrying the truth's text has that text's features (computed once per truth cell)
        {{ agent }} = truth_render_{{ slot }} AS same_{{ slot }},
        truth_render_kind_{{ slot }},
        -- (the double only counts where the cell is a float, and then the truth's text has it as its number)
        CASE WHEN {{ agent }} = truth_render_{{ slot }} THEN truth_number_{{ slot }} ELSE {{ m4_double(agent) }} END AS as_double_{{ slot }}
        {%- if column['temporal'] %},
        truth_timestamp_{{ slot }},
        {{ m4_signature(agent) }} AS signature_{{ slot }}
        {%- endif %}
        {%- endfor %}
    FROM ({{ m4_merged_rows(task, width, key_width) }}) AS merged_rows
),

classified_{{ task_index }} AS (
    SELECT
        *
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        -- m4_cell_kind: 2 int, 1 other float, 3 boolean, 0 anything else (an empty cell too)
        CASE
            WHEN same_{{ slot }} THEN truth_render_kind_{{ slot }}
            ELSE {{ m4_cell_kind('agent_' ~ slot, 'as_double_' ~ slot) }}
        END AS kind_{{ slot }}
        {%- endfor %}
    FROM cells_{{ task_index }}
),

timed_{{ task_index }} AS (
    SELECT
        *
        {%- for column in task['columns'] if column['temporal'] %},
        {{ m4_timestamp_from('agent_' ~ column['slot'], 'signature_' ~ column['slot']) }} AS timestamp_{{ column['slot'] }},
        -- a day/month/year date, for runs whose first value is read day first (m4_day_first)
        {{ m4_day_first_timestamp('agent_' ~ column['slot'], 'signature_' ~ column['slot']) }}
            AS timestamp_dm_{{ column['slot'] }}
        {%- endfor %}
    FROM classified_{{ task_index }}
),

counts_{{ task_index }} AS (
    SELECT
        run_number
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %}
        {%- set agent = 'agent_' ~ slot %}
        {%- set tolerance = 'CAST(' ~ column['tolerance'] ~ ' AS DOUBLE)' %}
        {%- set both = 'merged AND truth_present_' ~ slot ~ ' AND ' ~ agent ~ ' IS NOT NULL' %},
        COUNT({{ agent }}) AS n_present_{{ slot }},
        count_if(kind_{{ slot }} IN (1, 2)) AS n_float_{{ slot }},
        count_if(kind_{{ slot }} = 2) AS n_int_{{ slot }},
        count_if(kind_{{ slot }} = 3) AS n_bool_{{ slot }},
        count_if({{ both }}) AS both_present_{{ slot }},
        count_if({{ both }} AND kind_{{ slot }} NOT IN (1, 2)) AS agent_not_float_{{ slot }},
        count_if(merged AND NOT truth_present_{{ slot }} AND {{ agent }} IS NULL) AS missing_on_both_{{ slot }},
        count_if(
            merged AND kind_{{ slot }} IN (1, 2) AND abs(truth_number_{{ slot }} - as_double_{{ slot }}) <= {{ tolerance }}
        ) AS numeric_matches_{{ slot }},
        count_if(CASE
            WHEN merged AND kind_{{ slot }} = 3
                THEN abs(truth_number_{{ slot }} - CASE WHEN lower({{ agent }}) = 'true' THEN 1.0 ELSE 0.0 END) <= {{ tolerance }}
        END) AS bool_numeric_matches_{{ slot }},
        {%- if column['temporal'] %}
        ARG_MIN({{ agent }}, truth_row) FILTER (WHERE merged AND {{ agent }} IS NOT NULL) AS first_value_{{ slot }},
        {{ m4_shape_bounds('signature_' ~ slot, slot, both) }},
        count_if({{ both }} AND timestamp_{{ slot }} IS NOT NULL) AS both_timestamps_{{ slot }},
        count_if(
            merged AND abs(CAST(epoch_us(truth_timestamp_{{ slot }}) AS HUGEINT) - epoch_us(timestamp_{{ slot }}))
                <= {{ tolerance }} * 1000000
        ) AS timestamp_matches_{{ slot }},
        count_if({{ both }} AND timestamp_dm_{{ slot }} IS NOT NULL) AS both_timestamps_dm_{{ slot }},
        count_if(
            merged AND abs(CAST(epoch_us(truth_timestamp_{{ slot }}) AS HUGEINT) - epoch_us(timestamp_dm_{{ slot }}))
                <= {{ tolerance }} * 1000000
        ) AS timestamp_matches_dm_{{ slot }}
        {%- else %}
        CAST(NULL AS VARCHAR) AS first_value_{{ slot }},
        CAST(NULL AS VARCHAR) AS min_signature_{{ slot }},
        CAST(NULL AS VARCHAR) AS max_signature_{{ slot }},
        CAST(NULL AS VARCHAR) AS min_signature_b_{{ slot }},
        CAST(NULL AS VARCHAR) AS max_signature_b_{{ slot }},
        0 AS both_timestamps_{{ slot }},
        0 AS timestamp_matches_{{ slot }},
        0 AS both_timestamps_dm_{{ slot }},
        0 AS timestamp_matches_dm_{{ slot }}
        {%- endif %}
        {%- endfor %}
    FROM timed_{{ task_index }}
    GROUP BY run_number
),
{%- endfor %}

by_slot AS (
    {%- for task in plan %}
    {{ m4_unpivot_slots('counts_' ~ loop.index, 'run_number', task['columns'] | map(attribute='slot') | list,
                        ['n_present', 'n_float', 'n_int', 'n_bool', 'both_present', 'agent_not_float',
                         'missing_on_both', 'numeric_matches', 'bool_numeric_matches', 'first_value',
                         'min_signature', 'max_signature', 'min_signature_b', 'max_signature_b', 'both_timestamps', 'timestamp_matches',
                         'both_timestamps_dm', 'timestamp_matches_dm']) }}
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}
)

SELECT
    * EXCLUDE (first_value, day_first, both_timestamps, timestamp_matches, both_timestamps_dm, timestamp_matches_dm),
    CASE WHEN day_first THEN both_timestamps_dm ELSE both_timestamps END AS both_timestamps,
    CASE WHEN day_first THEN timestamp_matches_dm ELSE timestamp_matches END AS timestamp_matches
FROM (
    {{ m4_first_value_reading('by_slot') }}
) AS first_read
{%- else %}
{{ m4_no_rows([
    ('run_number', 'INTEGER'), ('slot', 'INTEGER'), ('n_present', 'BIGINT'), ('n_float', 'BIGINT'),
    ('n_int', 'BIGINT'), ('n_bool', 'BIGINT'), ('both_present', 'BIGINT'), ('agent_not_float', 'BIGINT'),
    ('missing_on_both', 'BIGINT'), ('numeric_matches', 'BIGINT'), ('bool_numeric_matches', 'BIGINT'),
    ('first_signature', 'VARCHAR'), ('first_signature_any', 'VARCHAR'), ('min_signature', 'VARCHAR'),
    ('max_signature', 'VARCHAR'), ('min_signature_b', 'VARCHAR'), ('max_signature_b', 'VARCHAR'),
    ('both_timestamps', 'BIGINT'), ('timestamp_matches', 'BIGINT')
]) }}
{%- endif %}
{% endmacro %}

{#- A part of m4_grading_plan, for the two models that count its columns side by
    side: 'large', the entries with the most agent rows (in that order, until they
    hold at least half of the batch's rows), and 'small', the others. The large
    part's SQL is short and its query long; the small part's SQL is long (most
    entries) and its query short, so DuckDB plans the one while it runs the other.
    Empty while dbt parses. -#}
{% macro m4_grading_plan_part(part) %}
    {%- set plan = m4_grading_plan() -%}
    {%- if not plan -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set counted = run_query(
        "SELECT runs.task, SUM(run_keys.agent_rows) AS agent_rows "
        ~ "FROM " ~ ref('int_grading__run_keys') ~ " AS run_keys "
        ~ "INNER JOIN " ~ ref('int_grading__runs') ~ " AS runs ON run_keys.run_number = runs.run_number "
        ~ "GROUP BY runs.task"
    ) -%}
    {%- set rows_by_task = {} -%}
    {%- for row in counted.rows %}{% do rows_by_task.update({row['task']: row['agent_rows'] | int}) %}{% endfor -%}
    {%- set weighted = [] -%}
    {%- for entry in plan -%}
        {%- set rows = [] -%}
        {%- for task in entry['tasks'] %}{% do rows.append(rows_by_task.get(task, 0)) %}{% endfor -%}
        {%- do weighted.append({'rows': rows | sum, 'position': loop.index0, 'entry': entry}) -%}
    {%- endfor -%}
    {%- set total = weighted | sum(attribute='rows') -%}
    {%- set large = [] -%}
    {%- set ns = namespace(held=0) -%}
    {%- for item in weighted | sort(attribute='rows', reverse=true) -%}
        {%- if ns.held * 2 < total -%}
            {%- do large.append(item['position']) -%}
            {%- set ns.held = ns.held + item['rows'] -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set chosen = [] -%}
    {%- for item in weighted if (item['position'] in large) == (part == 'large') -%}
        {%- do chosen.append(item['entry']) -%}
    {%- endfor -%}
    {{ return(chosen) }}
{% endmacro %}
