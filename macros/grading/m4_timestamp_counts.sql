{#- One row per (comparable run, scored slot that can compare as timestamps) of the plan
  entries `entries` (m4_grading_plan; `inputs`, the relations m4_merge_inputs names): one pass
  over the merged rows of the entries with such columns, counting what the timestamp comparison
  needs: the agent's first value (its format, m4_signature), the shapes and parses of the agent
  cells beside a truth value, and the timestamp matches (m4_timestamps_match), with
  day/month/year dates read day first when the first value is (pandas reads every value in the
  format of the first). Apart from m4_column_counts, so dbt builds both side by side.
-#}
{% macro m4_timestamp_counts(entries, inputs) %}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
{%- set plan = [] %}
{%- for task in entries if task['columns'] | selectattr('temporal') | list %}{% do plan.append(task) %}{% endfor %}
{%- set timed = ['first_row', 'first_value', 'min_signature', 'max_signature', 'min_signature_b', 'max_signature_b',
                 'both_timestamps', 'timestamp_matches', 'both_timestamps_dm', 'timestamp_matches_dm'] %}
{%- if plan %}
WITH
{%- for task in plan %}
{%- set task_index = loop.index %}
{%- set columns = task['columns'] | selectattr('temporal') | list %}
timed_{{ task_index }} AS (
    SELECT
        *
        {%- for column in columns %}
        {%- set slot = column['slot'] %},
        {{ m4_timestamp_from('agent_' ~ slot, 'signature_' ~ slot) }} AS timestamp_{{ slot }},
        -- a day/month/year date, for runs whose first value is read day first (m4_day_first)
        {{ m4_day_first_timestamp('agent_' ~ slot, 'signature_' ~ slot) }} AS timestamp_dm_{{ slot }}
        {%- endfor %}
    FROM (
        SELECT
            run_number,
            truth_row,
            merged
            {%- for column in columns %}
            {%- set slot = column['slot'] %},
            agent_{{ slot }},
            truth_present_{{ slot }},
            truth_timestamp_{{ slot }},
            {{ m4_signature('agent_' ~ slot) }} AS signature_{{ slot }}
            {%- endfor %}
        FROM ({{ m4_merged_rows(task, width, key_width, inputs) }}) AS merged_rows
    ) AS shaped
),

counted_{{ task_index }} AS (
    SELECT
        run_number
        {%- for column in columns %}
        {%- set slot = column['slot'] %}
        {%- set agent = 'agent_' ~ slot %}
        {%- set both = 'merged AND truth_present_' ~ slot ~ ' AND ' ~ agent ~ ' IS NOT NULL' %}
        {%- set tolerance = 'CAST(' ~ column['tolerance'] ~ ' AS DOUBLE)' %}
        {%- set truth = 'truth_timestamp_' ~ slot %},
        MIN(truth_row) FILTER (WHERE merged AND {{ agent }} IS NOT NULL) AS first_row_{{ slot }},
        ARG_MIN({{ agent }}, truth_row) FILTER (WHERE merged AND {{ agent }} IS NOT NULL) AS first_value_{{ slot }},
        {{ m4_shape_bounds('signature_' ~ slot, slot, both) }},
        count_if({{ both }} AND timestamp_{{ slot }} IS NOT NULL) AS both_timestamps_{{ slot }},
        count_if(merged AND {{ m4_timestamps_match(truth, 'timestamp_' ~ slot, tolerance) }}) AS timestamp_matches_{{ slot }},
        count_if({{ both }} AND timestamp_dm_{{ slot }} IS NOT NULL) AS both_timestamps_dm_{{ slot }},
        count_if(merged AND {{ m4_timestamps_match(truth, 'timestamp_dm_' ~ slot, tolerance) }}) AS timestamp_matches_dm_{{ slot }}
        {%- endfor %}
    FROM timed_{{ task_index }}
    GROUP BY run_number
),
{%- endfor %}

by_slot AS (
    {%- for task in plan %}
    {{ m4_unpivot_slots('counted_' ~ loop.index, 'run_number', task['columns'] | selectattr('temporal') | map(attribute='slot') | list, timed) }}
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}
)

SELECT
    * EXCLUDE (first_row, first_value, both_timestamps, timestamp_matches, both_timestamps_dm, timestamp_matches_dm),
    CASE WHEN day_first THEN both_timestamps_dm ELSE both_timestamps END AS both_timestamps,
    CASE WHEN day_first THEN timestamp_matches_dm ELSE timestamp_matches END AS timestamp_matches
FROM (
    {{ m4_first_value_reading('by_slot') }}
) AS first_read
{%- else %}
{{ m4_no_rows([
    ('run_number', 'INTEGER'), ('slot', 'INTEGER'), ('min_signature', 'VARCHAR'), ('max_signature', 'VARCHAR'),
    ('min_signature_b', 'VARCHAR'), ('max_signature_b', 'VARCHAR'), ('first_signature', 'VARCHAR'),
    ('first_signature_any', 'VARCHAR'), ('day_first', 'BOOLEAN'), ('both_timestamps', 'BIGINT'),
    ('timestamp_matches', 'BIGINT')
]) }}
{%- endif %}
{% endmacro %}
