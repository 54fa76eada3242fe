-- The truth keys a comparable run supplies on more than one row, with the first of those rows (the one M4Bench keeps); few rows.
{{ config(enabled=var('m4_grading', false)) }}
SELECT
    run_number,
    truth_row,
    kept_row,
    n_rows
FROM {{ ref('int_grading__agent_keys') }}
WHERE n_rows > 1
    AND truth_row IS NOT NULL
