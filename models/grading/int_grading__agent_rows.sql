{#-
  The rows of every comparable run with their normalised key (typed parts, as
  for the truth in int_grading__truth_values). A view: the two models reading it
  (agent keys, column matches) stream the output rows once each.
-#}
{{ config(enabled=var('m4_grading', false), materialized='view') }}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
SELECT
    runs.run_number,
    output_rows.task,
    output_rows.row_number,
    {{ m4_key_parts(key_width, 'output_rows.', 'runs.', 'key_dtype_') }}
    {%- for slot in range(1, width + 1) %},
    output_rows.column_{{ slot }}
    {%- endfor %}
FROM {{ source('agent_outputs', 'output_rows') }} AS output_rows
INNER JOIN {{ ref('int_grading__runs') }} AS runs
    ON output_rows.run_number = runs.run_number
WHERE runs.run_error IS NULL
