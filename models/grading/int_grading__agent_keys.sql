{#-
  One row per agent row of every comparable run: its normalised key text, whether
  it is the kept (first) row of its key, and the truth row it matches (NULL for
  an extra key). Duplicates are judged on normalised keys, as M4Bench does.
-#}
{{ config(enabled=var('m4_grading', false)) }}
WITH runs AS (
    SELECT run_id, task, reference_model
    FROM {{ ref('int_grading__runs') }}
    WHERE run_error IS NULL
),

key_columns AS (
    SELECT task, column_name, position
    FROM {{ source('agent_outputs', 'task_columns') }}
    WHERE role = 'key'
),

key_parts AS (
    SELECT
        cells.run_id,
        cells.row_number,
        key_columns.position,
        {{ m4_key_text('cells.', 'profiles') }} AS key_part
    FROM {{ ref('int_grading__agent_values') }} AS cells
    INNER JOIN runs
        ON cells.run_id = runs.run_id
    INNER JOIN key_columns
        ON runs.task = key_columns.task
        AND cells.column_name = key_columns.column_name
    INNER JOIN {{ ref('int_grading__agent_profiles') }} AS profiles
        ON cells.run_id = profiles.run_id
        AND cells.column_name = profiles.column_name
),

keyed_rows AS (
    SELECT
        run_id,
        row_number,
        STRING_AGG(key_part, chr(31) ORDER BY position) AS key_text
    FROM key_parts
    GROUP BY run_id, row_number
)

SELECT
    keyed_rows.run_id,
    keyed_rows.row_number,
    keyed_rows.key_text,
    keyed_rows.row_number = MIN(keyed_rows.row_number) OVER (
        PARTITION BY keyed_rows.run_id, keyed_rows.key_text
    ) AS is_kept,
    truth_keys.truth_row
FROM keyed_rows
INNER JOIN runs
    ON keyed_rows.run_id = runs.run_id
LEFT JOIN {{ ref('int_grading__truth_keys') }} AS truth_keys
    ON runs.reference_model = truth_keys.reference_model
    AND keyed_rows.key_text = truth_keys.key_text
