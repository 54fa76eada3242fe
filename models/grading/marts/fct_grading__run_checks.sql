{#-
  One row per (run, strict check), in M4Bench's order and with its names:
  test_output_exists, test_output_is_valid_csv, test_has_required_columns,
  test_row_coverage, test_score_accuracy[<column>]. A run whose comparison
  failed fails the coverage and accuracy checks with the reason as detail. Whether a
  check passes is its macro's condition (macros/grading/strict_checks.sql).
-#}
{{ config(enabled=var('m4_grading', false)) }}
WITH results AS (
    SELECT * FROM {{ ref('fct_grading__results') }}
),

readable AS (
    SELECT * FROM results WHERE {{ m4_check_readable() }}
),

checks AS (
    SELECT
        run_id,
        1 AS check_order,
        'test_output_exists' AS check_name,
        {{ m4_check_output_exists() }} AS passed,
        CASE WHEN NOT file_exists THEN 'Output file not found: ' || output_path END AS detail
    FROM results

    UNION ALL

    SELECT
        run_id,
        2,
        'test_output_is_valid_csv',
        {{ m4_check_output_is_valid_csv() }},
        CASE
            WHEN read_error IS NOT NULL THEN 'CSV read failed: ' || read_error
            WHEN agent_rows = 0 THEN 'Output CSV is empty'
        END
    FROM results
    WHERE file_exists

    UNION ALL

    SELECT
        run_id,
        3,
        'test_has_required_columns',
        {{ m4_check_has_required_columns() }},
        CASE
            WHEN len(missing_required_columns) > 0
                THEN 'Missing columns: ' || array_to_string(missing_required_columns, ', ')
        END
    FROM readable

    UNION ALL

    SELECT
        run_id,
        4,
        'test_row_coverage',
        {{ m4_check_row_coverage() }},
        CASE
            WHEN comparison_error IS NOT NULL THEN comparison_error
            WHEN row_coverage < row_coverage_threshold
                THEN printf(
                    'Only %.1f%% of ground truth keys matched (%d/%d). Need >= %.0f%%.',
                    100 * row_coverage, agent_keys_in_truth, truth_rows, 100 * row_coverage_threshold
                )
        END
    FROM readable

    UNION ALL

    SELECT
        scores.run_id,
        5 + scores.position,
        'test_score_accuracy[' || scores.column_name || ']',
        {{ m4_check_score_accuracy('scores.') }},
        CASE
            WHEN scores.comparison_failed THEN readable.comparison_error
            WHEN NOT scores.in_output THEN 'Column ''' || scores.column_name || ''' not found in agent output'
            WHEN scores.match_rate < scores.accuracy_threshold
                THEN printf(
                    '%s: %.1f%% match rate (%d/%d). Need >= %.0f%%.',
                    scores.column_name, 100 * scores.match_rate, scores.matched, scores.total,
                    100 * scores.accuracy_threshold
                )
        END
    FROM {{ ref('fct_grading__column_scores') }} AS scores
    INNER JOIN readable
        ON scores.run_id = readable.run_id
)

SELECT run_id, check_order, check_name, passed, detail
FROM checks
