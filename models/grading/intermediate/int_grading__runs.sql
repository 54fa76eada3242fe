{#-
  One row per run: its task settings, whether its file could be read, the
  required and key columns it lacks, and the first reason M4Bench's comparison
  would raise before comparing values (unreadable file, a reference lacking a
  column, missing key columns, key columns whose normalised types cannot be
  merged). Such a run scores 0 on every column. Per key slot, wide: how the run's key
  columns normalise (key_dtype_<slot>, pandas' dtype; key_day_first_<slot>:
  day/month/year dates read day first; NULL beyond the task's keys).
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set key_width = m4_grading_key_width() %}
WITH files AS (
    SELECT * FROM {{ ref('stg_agent_outputs__output_files') }}
),

settings AS (
    SELECT * FROM {{ ref('stg_agent_outputs__task_settings') }}
),

task_columns AS (
    SELECT * FROM {{ ref('stg_agent_outputs__task_columns') }}
),

truth_sizes AS (
    -- a task sharing another's rendering of the reference (int_grading__truth_tasks) reads its rows
    SELECT
        truth_tasks.task,
        COUNT(truth.truth_row) AS truth_rows,
        STRING_AGG(truth.reference_gaps, '; ') AS reference_gaps
    FROM {{ ref('int_grading__truth_tasks') }} AS truth_tasks
    INNER JOIN {{ ref('int_grading__truth_rows') }} AS truth
        ON truth_tasks.truth_task = truth.task
    GROUP BY truth_tasks.task
),

truth_profiles AS (
    SELECT * FROM {{ ref('int_grading__truth_profiles') }}
),

key_profiles AS (
    SELECT
        files.run_id,
        files.run_number,
        task_columns.column_name,
        task_columns.position,
        task_columns.slot,
        agent.key_kind,
        agent.dtype,
        agent.has_time_zone,
        agent.day_first,
        truth.key_kind AS truth_key_kind,
        truth.has_time_zone AS truth_has_time_zone
    FROM files
    INNER JOIN task_columns
        ON files.task = task_columns.task
        AND task_columns.role = 'key'
    INNER JOIN {{ ref('int_grading__agent_key_profiles') }} AS agent
        ON files.run_number = agent.run_number
        AND task_columns.slot = agent.slot
    INNER JOIN truth_profiles AS truth
        ON files.task = truth.task
        AND task_columns.slot = truth.slot
),

key_conflicts AS (
    SELECT
        run_number,
        STRING_AGG(
            column_name || ' (reference ' || truth_key_kind
            || CASE WHEN truth_has_time_zone THEN ' with time zone' ELSE '' END
            || ', output ' || key_kind
            || CASE WHEN has_time_zone THEN ' with time zone' ELSE '' END || ')',
            ', ' ORDER BY position
        ) AS conflicts
    FROM key_profiles
    WHERE key_kind <> truth_key_kind
        OR (key_kind = 'timestamp' AND has_time_zone <> truth_has_time_zone)
    GROUP BY run_number
),

key_types AS (
    SELECT
        run_number
        {%- for slot in range(1, key_width + 1) %},
        ANY_VALUE(dtype) FILTER (WHERE slot = {{ slot }}) AS key_dtype_{{ slot }},
        ANY_VALUE(day_first) FILTER (WHERE slot = {{ slot }}) AS key_day_first_{{ slot }}
        {%- endfor %}
    FROM key_profiles
    GROUP BY run_number
),

missing_columns AS (
    SELECT
        files.run_number,
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
    GROUP BY files.run_number
)

SELECT
    files.run_id,
    files.run_number,
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
    COALESCE(missing_columns.missing_required_columns, []) AS missing_required_columns,
    CASE
        WHEN NOT files.file_exists THEN files.read_error
        WHEN files.read_error IS NOT NULL THEN 'CSV read failed: ' || files.read_error
        WHEN truth_sizes.reference_gaps IS NOT NULL
            THEN 'Comparison failed: reference ' || truth_sizes.reference_gaps
        WHEN len(missing_columns.missing_key_columns) > 0
            THEN 'Comparison failed: agent output missing key columns: '
                || array_to_string(missing_columns.missing_key_columns, ', ')
        WHEN key_conflicts.conflicts IS NOT NULL
            THEN 'Comparison failed: key columns cannot be merged: ' || key_conflicts.conflicts
    END AS run_error
    {%- for slot in range(1, key_width + 1) %},
    key_types.key_dtype_{{ slot }},
    key_types.key_day_first_{{ slot }}
    {%- endfor %}
FROM files
INNER JOIN settings
    ON files.task = settings.task
LEFT JOIN truth_sizes
    ON files.task = truth_sizes.task
LEFT JOIN missing_columns
    ON files.run_number = missing_columns.run_number
LEFT JOIN key_conflicts
    ON files.run_number = key_conflicts.run_number
LEFT JOIN key_types
    ON files.run_number = key_types.run_number
