{#-
  One row per run: its task settings, whether its file could be read, the
  required and key columns it lacks, and the first reason M4Bench's comparison
  would raise before comparing values (unreadable file, missing key columns,
  key columns whose normalised types cannot be merged, a reference lacking a
  column). Such a run scores 0 on every column.
-#}
{{ config(enabled=var('m4_grading', false)) }}
WITH files AS (
    SELECT * FROM {{ source('agent_outputs', 'output_files') }}
),

settings AS (
    SELECT * FROM {{ source('agent_outputs', 'task_settings') }}
),

task_columns AS (
    SELECT * FROM {{ source('agent_outputs', 'task_columns') }}
),

truth_sizes AS (
    SELECT reference_model, COUNT(*) AS truth_rows
    FROM {{ ref('int_grading__truth_keys') }}
    GROUP BY reference_model
),

truth_columns AS (
    SELECT reference_model, column_name, key_kind, has_time_zone
    FROM {{ ref('int_grading__truth_profiles') }}
),

missing_columns AS (
    SELECT
        files.run_id,
        LIST(task_columns.column_name ORDER BY task_columns.position)
            FILTER (WHERE task_columns.role = 'key') AS missing_key_columns,
        LIST(task_columns.column_name ORDER BY task_columns.position)
            FILTER (WHERE task_columns.role = 'required') AS missing_required_columns
    FROM files
    INNER JOIN task_columns
        ON files.task = task_columns.task
    WHERE files.read_error IS NULL
        AND files.file_exists
        AND NOT list_contains(files.header, task_columns.column_name)
    GROUP BY files.run_id
),

reference_gaps AS (
    SELECT
        settings.task,
        STRING_AGG(DISTINCT task_columns.column_name, ', ' ORDER BY task_columns.column_name) AS absent
    FROM settings
    INNER JOIN task_columns
        ON settings.task = task_columns.task
        AND task_columns.role IN ('key', 'scored')
    LEFT JOIN truth_columns
        ON settings.reference_model = truth_columns.reference_model
        AND task_columns.column_name = truth_columns.column_name
    WHERE truth_columns.column_name IS NULL
    GROUP BY settings.task
),

key_conflicts AS (
    SELECT
        files.run_id,
        STRING_AGG(
            task_columns.column_name || ' (reference ' || truth_columns.key_kind
            || CASE WHEN truth_columns.has_time_zone THEN ' with time zone' ELSE '' END
            || ', output ' || agent.key_kind
            || CASE WHEN agent.has_time_zone THEN ' with time zone' ELSE '' END || ')',
            ', ' ORDER BY task_columns.position
        ) AS conflicts
    FROM files
    INNER JOIN settings
        ON files.task = settings.task
    INNER JOIN task_columns
        ON files.task = task_columns.task
        AND task_columns.role = 'key'
    INNER JOIN {{ ref('int_grading__agent_profiles') }} AS agent
        ON files.run_id = agent.run_id
        AND task_columns.column_name = agent.column_name
    INNER JOIN truth_columns
        ON settings.reference_model = truth_columns.reference_model
        AND task_columns.column_name = truth_columns.column_name
    WHERE agent.key_kind <> truth_columns.key_kind
        OR (agent.key_kind = 'timestamp' AND agent.has_time_zone <> truth_columns.has_time_zone)
    GROUP BY files.run_id
)

SELECT
    files.run_id,
    files.task,
    files.output_path,
    settings.reference_model,
    settings.row_coverage_threshold,
    settings.accuracy_threshold,
    files.file_exists,
    files.read_error,
    COALESCE(files.agent_rows, 0) AS agent_rows,
    files.header,
    COALESCE(truth_sizes.truth_rows, 0) AS truth_rows,
    COALESCE(missing_columns.missing_key_columns, []) AS missing_key_columns,
    COALESCE(missing_columns.missing_required_columns, []) AS missing_required_columns,
    CASE
        WHEN NOT files.file_exists THEN files.read_error
        WHEN files.read_error IS NOT NULL THEN 'CSV read failed: ' || files.read_error
        WHEN reference_gaps.absent IS NOT NULL
            THEN 'Comparison failed: reference ' || settings.reference_model || ' lacks ' || reference_gaps.absent
        WHEN len(missing_columns.missing_key_columns) > 0
            THEN 'Comparison failed: agent output missing key columns: '
                || array_to_string(missing_columns.missing_key_columns, ', ')
        WHEN key_conflicts.conflicts IS NOT NULL
            THEN 'Comparison failed: key columns cannot be merged: ' || key_conflicts.conflicts
    END AS run_error
FROM files
INNER JOIN settings
    ON files.task = settings.task
LEFT JOIN truth_sizes
    ON settings.reference_model = truth_sizes.reference_model
LEFT JOIN missing_columns
    ON files.run_id = missing_columns.run_id
LEFT JOIN reference_gaps
    ON files.task = reference_gaps.task
LEFT JOIN key_conflicts
    ON files.run_id = key_conflicts.run_id
