{#-
  One row per distinct normalised key of every comparable run: its first row
  (the one M4Bench keeps), how many rows carry it, and the truth row it matches
  (NULL for a key the reference does not have). Keys compare as pandas merges
  them: numbers as numbers, timestamps as timestamps, text as text; compiled per
  task, grouping and joining on the parts of its key kinds only.
-#}
{{ config(enabled=var('m4_grading', false)) }}
-- depends_on: {{ ref('int_grading__truth_profiles') }}, {{ ref('int_grading__runs') }}, {{ ref('int_grading__truth_values') }}
{%- set key_width = m4_grading_key_width() %}
{%- for task in m4_grading_plan() %}
{%- set key_columns = m4_typed_key_columns(task['keys']) %}
SELECT
    agent_keys.run_number,
    agent_keys.kept_row,
    agent_keys.n_rows,
    truth.truth_row
FROM (
    SELECT
        run_number,
        {{ key_columns | join(', ') }},
        MIN(row_number) AS kept_row,
        COUNT(*) AS n_rows
    FROM ({{ m4_agent_rows(task, 0, key_width) }}) AS agent_rows
    GROUP BY run_number, {{ key_columns | join(', ') }}
) AS agent_keys
LEFT JOIN {{ ref('int_grading__truth_values') }} AS truth
    ON truth.task = '{{ task['task'] }}'
    AND {{ m4_same_typed_key(task['keys'], 'agent_keys', 'truth') }}
UNION ALL
{%- endfor %}
SELECT
    CAST(NULL AS INTEGER) AS run_number,
    CAST(NULL AS BIGINT) AS kept_row,
    CAST(NULL AS BIGINT) AS n_rows,
    CAST(NULL AS BIGINT) AS truth_row
WHERE FALSE
