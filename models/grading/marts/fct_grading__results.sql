{#-
  One row per graded run: M4Bench's reward (mean over scored columns of the
  match rate, each rounded to 8 decimals, as evaluate.py reports it), key
  precision / recall / F1, row counts, and the reason the comparison failed
  (then every rate, the reward and the key metrics are 0, as in M4Bench).
  strict_pass: every strict check passes (macros/grading/strict_checks.sql).
-#}
{{ config(enabled=var('m4_grading', false)) }}
WITH runs AS (
    SELECT * FROM {{ ref('int_grading__runs') }}
),

mode_errors AS (
    SELECT
        run_id,
        STRING_AGG(column_name || ': ' || mode_error, '; ' ORDER BY column_name) AS errors
    FROM {{ ref('int_grading__column_matches') }}
    WHERE mode_error IS NOT NULL
    GROUP BY run_id
),

keyed AS (
    SELECT
        runs.*,
        COALESCE(
            runs.run_error,
            'Comparison failed: ' || mode_errors.errors
        ) AS comparison_error,
        COALESCE(run_keys.agent_unique_keys, 0) AS unique_keys,
        COALESCE(run_keys.agent_keys_in_truth, 0) AS keys_in_truth
    FROM runs
    LEFT JOIN mode_errors
        ON runs.run_id = mode_errors.run_id
    LEFT JOIN {{ ref('int_grading__run_keys') }} AS run_keys
        ON runs.run_number = run_keys.run_number
),

measured AS (
    SELECT
        keyed.*,
        CASE WHEN comparison_error IS NULL THEN unique_keys ELSE 0 END AS agent_unique_keys,
        CASE WHEN comparison_error IS NULL THEN keys_in_truth ELSE 0 END AS agent_keys_in_truth,
        CASE WHEN comparison_error IS NULL THEN unique_keys - keys_in_truth ELSE 0 END AS extra_keys,
        CASE WHEN comparison_error IS NULL THEN agent_rows - unique_keys ELSE 0 END AS duplicate_rows
    FROM keyed
),

scored AS (
    SELECT
        measured.*,
        CASE WHEN agent_unique_keys > 0 THEN agent_keys_in_truth / agent_unique_keys ELSE 0.0 END AS key_precision,
        CASE WHEN truth_rows > 0 THEN agent_keys_in_truth / truth_rows ELSE 0.0 END AS key_recall,
        CASE WHEN truth_rows > 0 THEN agent_keys_in_truth / truth_rows ELSE 0.0 END AS row_coverage
    FROM measured
),

rewards AS (
    SELECT
        run_id,
        ROUND(SUM(match_rate_reported) / COUNT(*), 8) AS reward,
        BOOL_AND({{ m4_check_score_accuracy() }}) AS all_columns_accurate
    FROM {{ ref('fct_grading__column_scores') }}
    GROUP BY run_id
)

SELECT
    scored.run_id,
    scored.task,
    scored.reference_model,
    scored.output_path,
    scored.file_exists,
    scored.read_error,
    scored.comparison_error,
    scored.agent_rows,
    scored.agent_unique_keys,
    scored.agent_keys_in_truth,
    scored.extra_keys,
    scored.duplicate_rows,
    scored.truth_rows,
    scored.missing_required_columns,
    scored.row_coverage,
    scored.row_coverage_threshold,
    scored.accuracy_threshold,
    ROUND(scored.key_precision, 8) AS key_precision,
    ROUND(scored.key_recall, 8) AS key_recall,
    ROUND(
        CASE
            WHEN scored.key_precision + scored.key_recall > 0
                THEN 2 * scored.key_precision * scored.key_recall / (scored.key_precision + scored.key_recall)
            ELSE 0.0
        END,
        8
    ) AS key_f1,
    CASE WHEN scored.comparison_error IS NULL THEN COALESCE(rewards.reward, 0.0) ELSE 0.0 END AS reward,
    {{ m4_strict_pass('scored.', 'COALESCE(rewards.all_columns_accurate, TRUE)') }} AS strict_pass
FROM scored
LEFT JOIN rewards
    ON scored.run_id = rewards.run_id
