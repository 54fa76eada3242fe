{#-
  One row per (comparable run, scored column present in the output): how
  M4Bench compares the column, decided as pandas decides it from the counts of
  int_grading__column_counts. The agent column's dtype is pandas' over the whole
  CSV, and in the merged frame missing keys add NaN (ints become floats,
  booleans objects). Numeric when every present truth value and every agent
  value beside a present truth value are numbers; else, when the truth's first
  50 values look like timestamps and both sides parse in the format of their
  first value, timestamps; else text. Two modes make pandas raise (boolean minus
  boolean; time zone against none): the run then fails. matched_numeric_or_timestamp
  is final for those modes; text matches come from int_grading__text_matches.
-#}
{{ config(enabled=var('m4_grading', false)) }}
WITH columns AS (
    SELECT
        runs.run_id,
        runs.run_number,
        task_columns.column_name,
        task_columns.slot,
        counts.*  EXCLUDE (run_number, slot),
        truth.dtype AS truth_dtype,
        truth.n_not_numeric AS truth_not_numeric,
        truth.looks_temporal,
        truth.all_timestamps AS truth_parses,
        truth.has_time_zone AS truth_has_time_zone,
        {{ m4_column_dtype('runs.agent_rows', 'counts.n_present', 'counts.n_int', 'counts.n_float', 'counts.n_bool') }} AS profiled_dtype,
        COALESCE(run_keys.agent_keys_in_truth, 0) < runs.truth_rows AS has_missing_keys,
        -- no agent value beside a present truth value fails the format of the first agent value
        counts.both_present = 0 OR COALESCE(
            {{ m4_same_shape('counts.first_signature', 'counts.', 'counts.first_signature_any') }}
                AND counts.both_timestamps = counts.both_present,
            FALSE
        ) AS agent_parses,
        COALESCE({{ m4_has_time_zone('counts.first_signature') }}, FALSE) AS agent_has_time_zone
    FROM {{ ref('int_grading__runs') }} AS runs
    INNER JOIN {{ ref('stg_agent_outputs__task_columns') }} AS task_columns
        ON runs.task = task_columns.task
        AND task_columns.role = 'scored'
        AND list_contains(runs.header, task_columns.column_name)
    INNER JOIN {{ ref('int_grading__column_counts') }} AS counts
        ON runs.run_number = counts.run_number
        AND task_columns.slot = counts.slot
    INNER JOIN {{ ref('int_grading__truth_profiles') }} AS truth
        ON runs.task = truth.task
        AND task_columns.slot = truth.slot
    LEFT JOIN {{ ref('int_grading__run_keys') }} AS run_keys
        ON runs.run_number = run_keys.run_number
    WHERE runs.run_error IS NULL
),

typed AS (
    SELECT
        *,
        CASE
            WHEN has_missing_keys AND profiled_dtype = 'int' THEN 'float'
            WHEN has_missing_keys AND profiled_dtype = 'bool' THEN 'objbool'
            ELSE profiled_dtype
        END AS agent_dtype
    FROM columns
),

decided AS (
    SELECT
        *,
        truth_not_numeric = 0 AND ({{ m4_is_bool_dtype('agent_dtype') }} OR agent_not_float = 0) AS both_numeric
    FROM typed
),

moded AS (
    SELECT
        *,
        CASE
            WHEN both_numeric
                THEN CASE WHEN truth_dtype = 'bool' AND agent_dtype = 'bool' THEN 'error' ELSE 'numeric' END
            WHEN NOT looks_temporal THEN 'text'
            WHEN truth_parses AND agent_parses
                THEN CASE WHEN truth_has_time_zone <> agent_has_time_zone THEN 'error' ELSE 'timestamp' END
            ELSE 'text'
        END AS mode
    FROM decided
)

SELECT
    run_id,
    run_number,
    column_name,
    slot,
    truth_dtype,
    agent_dtype,
    mode,
    CASE
        WHEN mode = 'error' AND both_numeric THEN 'boolean columns cannot be subtracted (pandas raises)'
        WHEN mode = 'error' THEN 'time-zone-aware and naive timestamps cannot be subtracted (pandas raises)'
    END AS mode_error,
    missing_on_both,
    CASE mode
        WHEN 'numeric' THEN CASE WHEN {{ m4_is_bool_dtype('agent_dtype') }} THEN bool_numeric_matches ELSE numeric_matches END
        WHEN 'timestamp' THEN timestamp_matches
        ELSE 0
    END AS mode_matches
FROM moded
