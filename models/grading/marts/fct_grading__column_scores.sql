{#-
  One row per (run, scored column): matched truth rows, the denominator
  (truth rows + extra agent keys + duplicate agent rows) and the match rate,
  0 when the column is absent or the run's comparison failed. match_rate is
  exact (strict checks use it); match_rate_reported is rounded to 8 decimals,
  as M4Bench reports it and averages it into the reward.
-#}
{{ config(enabled=var('m4_grading', false)) }}
WITH runs AS (
    SELECT * FROM {{ ref('int_grading__runs') }}
),

column_matches AS (
    SELECT * FROM {{ ref('int_grading__column_matches') }}
),

failed_runs AS (
    SELECT run_id FROM runs WHERE run_error IS NOT NULL
    UNION
    SELECT run_id FROM column_matches WHERE mode_error IS NOT NULL
),

denominators AS (
    SELECT
        runs.run_id,
        runs.truth_rows
        + COALESCE(run_keys.agent_unique_keys - run_keys.agent_keys_in_truth, 0)
        + COALESCE(run_keys.agent_rows - run_keys.agent_unique_keys, 0) AS total
    FROM runs
    LEFT JOIN {{ ref('int_grading__run_keys') }} AS run_keys
        ON runs.run_number = run_keys.run_number
),

scores AS (
    SELECT
        runs.run_id,
        runs.task,
        task_columns.column_name,
        task_columns.position,
        runs.accuracy_threshold,
        failed_runs.run_id IS NOT NULL AS comparison_failed,
        column_matches.mode,
        column_matches.truth_dtype,
        column_matches.agent_dtype,
        CASE WHEN failed_runs.run_id IS NULL THEN COALESCE(column_matches.matched, 0) ELSE 0 END AS matched,
        denominators.total,
        list_contains(runs.header, task_columns.column_name) AS in_output
    FROM runs
    INNER JOIN {{ ref('stg_agent_outputs__task_columns') }} AS task_columns
        ON runs.task = task_columns.task
        AND task_columns.role = 'scored'
    INNER JOIN denominators
        ON runs.run_id = denominators.run_id
    LEFT JOIN column_matches
        ON runs.run_id = column_matches.run_id
        AND task_columns.column_name = column_matches.column_name
    LEFT JOIN failed_runs
        ON runs.run_id = failed_runs.run_id
)

SELECT
    run_id,
    task,
    column_name,
    position,
    accuracy_threshold,
    comparison_failed,
    COALESCE(in_output, FALSE) AS in_output,
    mode,
    truth_dtype,
    agent_dtype,
    matched,
    total,
    CASE WHEN total > 0 AND NOT comparison_failed THEN matched / total ELSE 0.0 END AS match_rate,
    ROUND(CASE WHEN total > 0 AND NOT comparison_failed THEN matched / total ELSE 0.0 END, 8) AS match_rate_reported
FROM scores
