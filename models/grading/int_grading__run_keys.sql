-- One row per comparable run: distinct normalised agent keys, how many are in the truth, duplicates.
{{ config(enabled=var('m4_grading', false)) }}
SELECT
    run_id,
    COUNT(*) AS agent_rows,
    COUNT(DISTINCT key_text) AS agent_unique_keys,
    COUNT(DISTINCT key_text) FILTER (WHERE truth_row IS NOT NULL) AS agent_keys_in_truth
FROM {{ ref('int_grading__agent_keys') }}
GROUP BY run_id
