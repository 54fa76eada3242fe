{#-
  One row per (comparable run, scored column present in the output): the
  comparison mode (int_grading__column_modes) and the truth rows that match:
  cells missing on both sides where the agent supplied the key, plus the
  matches of the column's mode.
-#}
{{ config(enabled=var('m4_grading', false)) }}
SELECT
    modes.run_id,
    modes.run_number,
    modes.column_name,
    modes.truth_dtype,
    modes.agent_dtype,
    modes.mode,
    modes.mode_error,
    CAST(modes.missing_on_both + CASE modes.mode
        WHEN 'text' THEN COALESCE(text.text_matches, 0)
        ELSE modes.mode_matches
    END AS BIGINT) AS matched
FROM {{ ref('int_grading__column_modes') }} AS modes
LEFT JOIN {{ ref('int_grading__text_matches') }} AS text
    ON modes.run_number = text.run_number
    AND modes.slot = text.slot
