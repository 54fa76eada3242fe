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

key_values AS (
    SELECT
        v.reference_model,
        v.column_name,
        v.value,
        {{ m4_key_text('v.', 'profiles') }} AS key_part
    FROM {{ ref('int_grading__truth_values') }} AS v
    INNER JOIN {{ ref('int_grading__truth_profiles') }} AS profiles
        ON v.reference_model = profiles.reference_model
        AND v.column_name = profiles.column_name
),

key_parts AS (
    SELECT
        cells.reference_model,
        cells.truth_row,
        reference_keys.position,
        key_values.key_part
    FROM {{ ref('int_grading__truth_cells') }} AS cells
    INNER JOIN reference_keys
        ON cells.reference_model = reference_keys.reference_model
        AND cells.column_name = reference_keys.column_name
    INNER JOIN key_values
        ON cells.reference_model = key_values.reference_model
        AND cells.column_name = key_values.column_name
        AND cells.value IS NOT DISTINCT FROM key_values.value
)

SELECT
    reference_model,
    truth_row,
    STRING_AGG(key_part, chr(31) ORDER BY position) AS key_text
FROM key_parts
GROUP BY reference_model, truth_row
