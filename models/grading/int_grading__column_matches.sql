{#-
  One row per (comparable run, scored column present in the output): how M4Bench
  compares the column and how many truth rows match. The comparison mode is
  decided per column, as pandas does: numeric when every present truth value
  and every agent value beside a present truth value parse as numbers
  (|truth - agent| <= tolerance); else, when the truth's first 50 values look
  like timestamps and both sides parse with the format of their first value,
  timestamps (|difference| <= tolerance seconds); else text equality of
  pandas' strings (so a literal None matches None). Missing on both sides
  matches only when the agent supplied the key. Two modes make pandas raise
  (boolean minus boolean; time zone against none): the run then fails.
  The merged cells are read once: one pass counts, per (run, column, agent
  timestamp shape), what every mode needs (the matches of each mode included),
  and the column's mode then picks its counts.
-#}
{{ config(enabled=var('m4_grading', false)) }}
WITH runs AS (
    SELECT
        runs.run_id,
        runs.task,
        runs.reference_model,
        runs.truth_rows,
        COALESCE(run_keys.agent_keys_in_truth, 0) < runs.truth_rows AS has_missing_keys
    FROM {{ ref('int_grading__runs') }} AS runs
    LEFT JOIN {{ ref('int_grading__run_keys') }} AS run_keys
        ON runs.run_id = run_keys.run_id
    WHERE runs.run_error IS NULL
),

column_types AS (
    SELECT
        runs.run_id,
        task_columns.column_name,
        task_columns.tolerance,
        truth.dtype AS truth_dtype,
        truth.looks_temporal,
        truth.n_timestamp = truth.n_present AS truth_parses,
        truth.has_time_zone AS truth_has_time_zone,
        CASE
            WHEN agent.dtype IS NULL THEN 'empty'
            WHEN runs.has_missing_keys AND agent.dtype = 'int' THEN 'float'
            WHEN runs.has_missing_keys AND agent.dtype = 'bool' THEN 'objbool'
            ELSE agent.dtype
        END AS agent_dtype
    FROM runs
    INNER JOIN {{ source('agent_outputs', 'task_columns') }} AS task_columns
        ON runs.task = task_columns.task
        AND task_columns.role = 'scored'
    INNER JOIN {{ ref('int_grading__truth_profiles') }} AS truth
        ON runs.reference_model = truth.reference_model
        AND task_columns.column_name = truth.column_name
    LEFT JOIN {{ ref('int_grading__agent_profiles') }} AS agent
        ON runs.run_id = agent.run_id
        AND task_columns.column_name = agent.column_name
),

cells AS (
    SELECT
        merged.*,
        {{ m4_numeric('merged.truth_', 'column_types.truth_dtype') }} AS truth_number,
        {{ m4_numeric('merged.agent_', 'column_types.agent_dtype') }} AS agent_number,
        column_types.truth_dtype,
        column_types.agent_dtype,
        COALESCE(column_types.tolerance, 0) AS tolerance
    FROM {{ ref('int_grading__merged_cells') }} AS merged
    INNER JOIN column_types
        ON merged.run_id = column_types.run_id
        AND merged.column_name = column_types.column_name
),

signature_counts AS (
    SELECT
        run_id,
        column_name,
        agent_signature,
        MIN(truth_row) FILTER (WHERE agent_value IS NOT NULL) AS first_row,
        COUNT(*) FILTER (WHERE truth_value IS NOT NULL AND truth_number IS NULL) AS truth_not_numeric,
        COUNT(*) FILTER (
            WHERE truth_value IS NOT NULL AND agent_value IS NOT NULL AND agent_number IS NULL
        ) AS agent_not_numeric,
        COUNT(*) FILTER (WHERE truth_value IS NOT NULL AND agent_value IS NOT NULL) AS both_present,
        COUNT(*) FILTER (
            WHERE truth_value IS NOT NULL AND agent_value IS NOT NULL AND agent_timestamp_value IS NOT NULL
        ) AS both_present_timestamps,
        COUNT(*) FILTER (
            WHERE truth_value IS NULL AND agent_value IS NULL AND agent_row IS NOT NULL
        ) AS missing_on_both,
        COUNT(*) FILTER (WHERE abs(truth_number - agent_number) <= tolerance) AS numeric_matches,
        COUNT(*) FILTER (
            WHERE abs(CAST(epoch_us(truth_timestamp_value) AS HUGEINT) - epoch_us(agent_timestamp_value))
                <= tolerance * 1000000
        ) AS timestamp_matches,
        COUNT(*) FILTER (
            WHERE {{ m4_render('truth_', 'truth_dtype', safe=true) }} = {{ m4_render('agent_', 'agent_dtype', safe=true) }}
        ) AS text_matches
    FROM cells
    GROUP BY run_id, column_name, agent_signature
),

agent_formats AS (
    SELECT
        run_id,
        column_name,
        ARG_MIN(agent_signature, first_row) AS first_signature
    FROM signature_counts
    GROUP BY run_id, column_name
),

column_modes AS (
    SELECT
        counts.run_id,
        counts.column_name,
        SUM(counts.truth_not_numeric) AS truth_not_numeric,
        SUM(counts.agent_not_numeric) AS agent_not_numeric,
        SUM(counts.both_present) - COALESCE(
            SUM(counts.both_present_timestamps) FILTER (WHERE counts.agent_signature = agent_formats.first_signature),
            0
        ) AS agent_not_timestamp,
        COALESCE(ANY_VALUE({{ m4_has_time_zone('agent_formats.first_signature') }}), FALSE) AS agent_has_time_zone,
        SUM(counts.missing_on_both) AS missing_on_both,
        SUM(counts.numeric_matches) AS numeric_matches,
        SUM(counts.timestamp_matches) AS timestamp_matches,
        SUM(counts.text_matches) AS text_matches
    FROM signature_counts AS counts
    INNER JOIN agent_formats
        ON counts.run_id = agent_formats.run_id
        AND counts.column_name = agent_formats.column_name
    GROUP BY counts.run_id, counts.column_name
),

decided AS (
    SELECT
        column_types.*,
        column_modes.missing_on_both,
        column_modes.numeric_matches,
        column_modes.timestamp_matches,
        column_modes.text_matches,
        CASE
            WHEN column_modes.truth_not_numeric = 0 AND column_modes.agent_not_numeric = 0
                THEN CASE
                    WHEN column_types.truth_dtype = 'bool' AND column_types.agent_dtype = 'bool' THEN 'error'
                    ELSE 'numeric'
                END
            WHEN NOT column_types.looks_temporal THEN 'text'
            WHEN column_types.truth_parses AND column_modes.agent_not_timestamp = 0
                THEN CASE
                    WHEN column_types.truth_has_time_zone <> column_modes.agent_has_time_zone THEN 'error'
                    ELSE 'timestamp'
                END
            ELSE 'text'
        END AS mode,
        CASE
            WHEN column_modes.truth_not_numeric = 0 AND column_modes.agent_not_numeric = 0
                AND column_types.truth_dtype = 'bool' AND column_types.agent_dtype = 'bool'
                THEN 'boolean columns cannot be subtracted (pandas raises)'
            WHEN column_types.looks_temporal AND column_types.truth_parses AND column_modes.agent_not_timestamp = 0
                AND column_types.truth_has_time_zone <> column_modes.agent_has_time_zone
                THEN 'time-zone-aware and naive timestamps cannot be subtracted (pandas raises)'
        END AS mode_error
    FROM column_types
    INNER JOIN column_modes
        ON column_types.run_id = column_modes.run_id
        AND column_types.column_name = column_modes.column_name
)

SELECT
    run_id,
    column_name,
    truth_dtype,
    agent_dtype,
    mode,
    mode_error,
    CAST(missing_on_both + CASE mode
        WHEN 'numeric' THEN numeric_matches
        WHEN 'timestamp' THEN timestamp_matches
        WHEN 'text' THEN text_matches
        ELSE 0
    END AS BIGINT) AS matched
FROM decided
