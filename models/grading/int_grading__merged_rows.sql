{#-
  M4Bench's merge, from the agent's side: every row of every comparable run
  with the truth row of its key (NULL for a key the truth lacks) and `merged`,
  true for the first row of a key the truth has (the row the left merge keeps).
  Truth rows the agent lacks are left out: they never match. A view: each model
  reading it takes only the truth columns it needs.
-#}
{{ config(enabled=var('m4_grading', false), materialized='view') }}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
SELECT
    agent.run_number,
    agent.task,
    agent.row_number,
    truth.truth_row,
    truth.truth_row IS NOT NULL
        AND (repeated_keys.kept_row IS NULL OR repeated_keys.kept_row = agent.row_number) AS merged
    {%- for slot in range(1, width + 1) %},
    agent.column_{{ slot }} AS agent_{{ slot }},
    truth.present_{{ slot }} AS truth_present_{{ slot }},
    truth.number_{{ slot }} AS truth_number_{{ slot }},
    truth.render_{{ slot }} AS truth_render_{{ slot }},
    truth.timestamp_{{ slot }} AS truth_timestamp_{{ slot }}
    {%- endfor %}
FROM {{ ref('int_grading__agent_rows') }} AS agent
LEFT JOIN {{ ref('int_grading__truth_values') }} AS truth
    ON agent.task = truth.task
    AND {{ m4_same_key(key_width, 'agent', 'truth') }}
LEFT JOIN {{ ref('int_grading__repeated_keys') }} AS repeated_keys
    ON agent.run_number = repeated_keys.run_number
    AND truth.truth_row = repeated_keys.truth_row
