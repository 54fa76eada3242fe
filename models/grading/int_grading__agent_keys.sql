{#-
  One row per distinct normalised key of every comparable run: its first row
  (the one M4Bench keeps), how many rows carry it, and the truth row it matches
  (NULL for a key the reference does not have). Keys compare as pandas merges
  them: numbers as numbers, timestamps as timestamps, text as text.
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set key_width = m4_grading_key_width() %}
WITH agent_keys AS (
    SELECT
        run_number,
        task
        {%- for slot in range(1, key_width + 1) %},
        key_number_{{ slot }},
        key_timestamp_{{ slot }},
        key_text_{{ slot }}
        {%- endfor %},
        MIN(row_number) AS kept_row,
        COUNT(*) AS n_rows
    FROM {{ ref('int_grading__agent_rows') }}
    GROUP BY ALL
)

SELECT
    agent_keys.*,
    truth.truth_row
FROM agent_keys
LEFT JOIN {{ ref('int_grading__truth_values') }} AS truth
    ON agent_keys.task = truth.task
    AND {{ m4_same_key(key_width, 'agent_keys', 'truth') }}
