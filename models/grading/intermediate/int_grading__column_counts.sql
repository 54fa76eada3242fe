{#-
  One row per (comparable run, scored slot): the cell counts (int_grading__cell_counts)
  and, for the columns that can compare as timestamps, the timestamp counts
  (int_grading__timestamp_counts): what int_grading__column_modes decides from.
-#}
{{ config(enabled=var('m4_grading', false), materialized='view') }}
SELECT
    cells.*,
    timestamps.first_signature,
    timestamps.first_signature_any,
    timestamps.min_signature,
    timestamps.max_signature,
    timestamps.min_signature_b,
    timestamps.max_signature_b,
    COALESCE(timestamps.both_timestamps, 0) AS both_timestamps,
    COALESCE(timestamps.timestamp_matches, 0) AS timestamp_matches
FROM {{ ref('int_grading__cell_counts') }} AS cells
LEFT JOIN {{ ref('int_grading__timestamp_counts') }} AS timestamps
    ON cells.run_number = timestamps.run_number
    AND cells.slot = timestamps.slot
