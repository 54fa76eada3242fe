{#-
  M4Bench's merge, long: one row per (run, scored column, truth row) of every
  comparable run, with the truth cell and the cell of the agent's kept row for
  that key (agent_row NULL when the agent did not supply the key), each with
  its value features. Scored columns the output lacks are left out (they score 0).
-#}
{{ config(enabled=var('m4_grading', false), materialized='view') }}
WITH runs AS (
    SELECT run_id, task, reference_model, header
    FROM {{ ref('int_grading__runs') }}
    WHERE run_error IS NULL
),

kept_rows AS (
    SELECT run_id, truth_row, row_number AS agent_row
    FROM {{ ref('int_grading__agent_keys') }}
    WHERE is_kept AND truth_row IS NOT NULL
),

merged_rows AS (
    SELECT
        runs.run_id,
        runs.task,
        runs.reference_model,
        runs.header,
        truth_keys.truth_row,
        kept_rows.agent_row
    FROM runs
    INNER JOIN {{ ref('int_grading__truth_keys') }} AS truth_keys
        ON runs.reference_model = truth_keys.reference_model
    LEFT JOIN kept_rows
        ON runs.run_id = kept_rows.run_id
        AND truth_keys.truth_row = kept_rows.truth_row
),

scored_columns AS (
    SELECT task, column_name
    FROM {{ source('agent_outputs', 'task_columns') }}
    WHERE role = 'scored'
)

SELECT
    merged_rows.run_id,
    scored_columns.column_name,
    merged_rows.truth_row,
    merged_rows.agent_row,
    truth_values.value AS truth_value,
    truth_values.is_float AS truth_is_float,
    truth_values.is_true AS truth_is_true,
    truth_values.as_double AS truth_as_double,
    truth_values.signature AS truth_signature,
    truth_values.timestamp_value AS truth_timestamp_value,
    agent_values.value AS agent_value,
    agent_values.is_float AS agent_is_float,
    agent_values.is_true AS agent_is_true,
    agent_values.as_double AS agent_as_double,
    agent_values.signature AS agent_signature,
    agent_values.timestamp_value AS agent_timestamp_value
FROM merged_rows
INNER JOIN scored_columns
    ON merged_rows.task = scored_columns.task
    AND list_contains(merged_rows.header, scored_columns.column_name)
INNER JOIN {{ ref('int_grading__truth_values') }} AS truth_values
    ON merged_rows.reference_model = truth_values.reference_model
    AND merged_rows.truth_row = truth_values.truth_row
    AND scored_columns.column_name = truth_values.column_name
LEFT JOIN {{ ref('int_grading__agent_values') }} AS agent_values
    ON merged_rows.run_id = agent_values.run_id
    AND merged_rows.agent_row = agent_values.row_number
    AND scored_columns.column_name = agent_values.column_name
