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
        column_types.agent_dtype
    FROM {{ ref('int_grading__merged_cells') }} AS merged
    INNER JOIN column_types
        ON merged.run_id = column_types.run_id
        AND merged.column_name = column_types.column_name
),

agent_formats AS (
    SELECT
        run_id,
        column_name,
        ARG_MIN(agent_signature, truth_row) FILTER (WHERE agent_value IS NOT NULL) AS first_signature
    FROM cells
    GROUP BY run_id, column_name
),

column_modes AS (
    SELECT
        cells.run_id,
        cells.column_name,
        COUNT(*) FILTER (WHERE cells.truth_value IS NOT NULL AND cells.truth_number IS NULL) AS truth_not_numeric,
        COUNT(*) FILTER (
            WHERE cells.truth_value IS NOT NULL AND cells.agent_value IS NOT NULL AND cells.agent_number IS NULL
        ) AS agent_not_numeric,
        COUNT(*) FILTER (
            WHERE cells.truth_value IS NOT NULL AND cells.agent_value IS NOT NULL
                AND NOT COALESCE(
                    cells.agent_signature = agent_formats.first_signature
                    AND cells.agent_timestamp_value IS NOT NULL,
                    FALSE
                )
        ) AS agent_not_timestamp,
        COALESCE(ANY_VALUE({{ m4_has_time_zone('agent_formats.first_signature') }}), FALSE) AS agent_has_time_zone
    FROM cells
    INNER JOIN agent_formats
        ON cells.run_id = agent_formats.run_id
        AND cells.column_name = agent_formats.column_name
    GROUP BY cells.run_id, cells.column_name
),

decided AS (
    SELECT
        column_types.*,
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
),

matched AS (
    SELECT
        cells.run_id,
        cells.column_name,
        COUNT(*) FILTER (
            WHERE (cells.truth_value IS NULL AND cells.agent_value IS NULL AND cells.agent_row IS NOT NULL)
                OR CASE decided.mode
                    WHEN 'numeric'
                        THEN abs(cells.truth_number - cells.agent_number) <= COALESCE(decided.tolerance, 0)
                    WHEN 'timestamp'
                        THEN abs(epoch_us(cells.truth_timestamp_value) - epoch_us(cells.agent_timestamp_value))
                            <= COALESCE(decided.tolerance, 0) * 1000000
                    WHEN 'text'
                        THEN {{ m4_render('cells.truth_', 'cells.truth_dtype') }}
                            = {{ m4_render('cells.agent_', 'cells.agent_dtype') }}
                    ELSE FALSE
                END
        ) AS matched
    FROM cells
    INNER JOIN decided
        ON cells.run_id = decided.run_id
        AND cells.column_name = decided.column_name
    GROUP BY cells.run_id, cells.column_name
)

SELECT
    decided.run_id,
    decided.column_name,
    decided.truth_dtype,
    decided.agent_dtype,
    decided.mode,
    decided.mode_error,
    COALESCE(matched.matched, 0) AS matched
FROM decided
LEFT JOIN matched
    ON decided.run_id = matched.run_id
    AND decided.column_name = matched.column_name
