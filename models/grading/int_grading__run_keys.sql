-- One row per comparable run: its rows, distinct normalised keys, how many of them are in the truth.
{{ config(enabled=var('m4_grading', false)) }}
SELECT
    run_number,
    SUM(n_rows) AS agent_rows,
    COUNT(*) AS agent_unique_keys,
    COUNT(truth_row) AS agent_keys_in_truth
FROM {{ ref('int_grading__agent_keys') }}
GROUP BY run_number
