{#-
  One row per (comparable run, scored slot): one pass over the merged rows
  (m4_merged_rows), compiled per group of tasks sharing a reference and its
  columns (m4_grading_plan: only their slots, their tolerances as constants),
  counting
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
{{ config(enabled=var('m4_grading', false)) }}
-- depends_on: {{ ref('int_grading__truth_tasks') }}, {{ ref('int_grading__truth_profiles') }}, {{ ref('int_grading__truth_values') }}, {{ ref('int_grading__runs') }}, {{ ref('int_grading__repeated_keys') }}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
{%- set plan = [] %}
{%- for task in m4_grading_plan() if task['columns'] %}{% do plan.append(task) %}{% endfor %}
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
