{#-
  One row per (task, slot) of the batch's references: how pandas reads the
  ground-truth column (dtype, key kind, whether every present value parses as a
  timestamp in the format of the first, its time zone), M4Bench's "looks
  temporal" test on its first 50 present values, and whether every present value
  is numeric (then only a non-numeric agent value can make the column text).
  Profiled once per truth task, listed for each task sharing it
  (int_grading__truth_tasks).
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set width = m4_grading_width() %}
WITH truth AS (
    SELECT *
    FROM {{ ref('int_grading__truth_rows') }}
    WHERE truth_row IS NOT NULL
),

cells AS (
    {{ m4_cell_features('truth', width) }}
),

aggregates AS (
    SELECT
        task,
        COUNT(*) AS n_rows,
        {{ m4_profile_aggregates(width, 'truth_row') }}
        {%- for slot in range(1, width + 1) %},
        -- the first 50 present values, joined by line breaks (the pattern cannot match across them)
        COALESCE(regexp_matches(
            array_to_string(ARG_MIN(column_{{ slot }}, truth_row, 50) FILTER (WHERE column_{{ slot }} IS NOT NULL), chr(10)),
            '\d{4}-\d{2}-\d{2}|T\d{2}:|\d{1,2}:\d{2}'
        ), FALSE) AS temporal_text_{{ slot }}
        {%- endfor %}
    FROM cells
    GROUP BY task
),

profiles AS (
    {{ m4_profile_rows('aggregates', 'task', 'n_rows', width) }}
),

temporal AS (
    {{ m4_unpivot_slots('aggregates', 'task', range(1, width + 1), ['temporal_text']) }}
)

SELECT
    truth_tasks.task,
    profiles.* EXCLUDE (task),
    -- rendered ints, floats and booleans never look temporal: only text columns can
    profiles.dtype = 'text' AND temporal.temporal_text AS looks_temporal,
    CASE WHEN profiles.dtype = 'text' THEN profiles.n_present - profiles.n_float ELSE 0 END AS n_not_numeric
FROM profiles
INNER JOIN temporal
    ON profiles.task = temporal.task
    AND profiles.slot = temporal.slot
INNER JOIN {{ ref('int_grading__truth_tasks') }} AS truth_tasks
    ON profiles.task = truth_tasks.truth_task
