{#-
  One row per (run, scored slot) compared as text: merged rows whose truth text
  equals the agent's pandas string under the agent column's dtype (astype
  ("string"): ints without a decimal point, floats as Python writes them,
  True/False for booleans; so a literal None matches None). A second pass over
  the merged rows, compiled per group of tasks sharing a reference and
  restricted to the runs with a text-compared column (listed as constants, so
  only their rows are read), so the truth's text is read only where it decides.
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
{%- set inputs = m4_merge_inputs() %}
{%- set text_runs = m4_grading_text_runs() %}
{%- set plan = [] %}
{%- for task in m4_grading_plan() if m4_plan_runs(text_runs, task) and task['columns'] %}{% do plan.append(task) %}{% endfor %}
WITH text_columns AS (
    SELECT run_number, slot, agent_dtype
    FROM {{ ref('int_grading__column_modes') }}
    WHERE mode = 'text'
)
{%- for task in plan %}
{%- set task_index = loop.index %}
{%- set runs = m4_plan_runs(text_runs, task) %},

text_runs_{{ task_index }} AS (
    SELECT
        run_number
        {%- for column in task['columns'] %},
        ANY_VALUE(agent_dtype) FILTER (WHERE slot = {{ column['slot'] }}) AS dtype_{{ column['slot'] }}
        {%- endfor %}
    FROM text_columns
    WHERE run_number IN ({{ runs }})
    GROUP BY run_number
),

matches_{{ task_index }} AS (
    SELECT
        merged.run_number
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        count_if(
            merged.merged AND text_runs.dtype_{{ slot }} IS NOT NULL
            AND {{ m4_texts_match('merged.truth_render_' ~ slot, 'merged.agent_' ~ slot, 'text_runs.dtype_' ~ slot) }}
        ) AS text_matches_{{ slot }}
        {%- endfor %}
    FROM ({{ m4_merged_rows(task, width, key_width, inputs, runs=runs) }}) AS merged
    INNER JOIN text_runs_{{ task_index }} AS text_runs
        ON merged.run_number = text_runs.run_number
    GROUP BY merged.run_number
)
{%- endfor %}

{%- for task in plan %}
{%- set task_index = loop.index %}
{%- for column in task['columns'] %}
SELECT run_number, {{ column['slot'] }} AS slot, text_matches_{{ column['slot'] }} AS text_matches
FROM matches_{{ task_index }}
UNION ALL
{%- endfor %}
{%- endfor %}
{{ m4_no_rows([('run_number', 'INTEGER'), ('slot', 'INTEGER'), ('text_matches', 'BIGINT')]) }}
