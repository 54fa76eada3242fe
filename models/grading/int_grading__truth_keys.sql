-- One row per (reference_model, truth_row): the row's normalised key text (key columns joined by chr(31)).
{{ config(enabled=var('m4_grading', false)) }}
WITH reference_keys AS (
    SELECT DISTINCT
        settings.reference_model,
        task_columns.column_name,
        task_columns.position
    FROM {{ source('agent_outputs', 'task_settings') }} AS settings
    INNER JOIN {{ source('agent_outputs', 'task_columns') }} AS task_columns
        ON settings.task = task_columns.task
        AND task_columns.role = 'key'
),

key_parts AS (
    SELECT
        cells.reference_model,
        cells.truth_row,
        reference_keys.position,
        {{ m4_key_text('cells.', 'profiles') }} AS key_part
    FROM {{ ref('int_grading__truth_values') }} AS cells
    INNER JOIN reference_keys
        ON cells.reference_model = reference_keys.reference_model
        AND cells.column_name = reference_keys.column_name
    INNER JOIN {{ ref('int_grading__truth_profiles') }} AS profiles
        ON cells.reference_model = profiles.reference_model
        AND cells.column_name = profiles.column_name
)

SELECT
    reference_model,
    truth_row,
    STRING_AGG(key_part, chr(31) ORDER BY position) AS key_text
FROM key_parts
GROUP BY reference_model, truth_row
