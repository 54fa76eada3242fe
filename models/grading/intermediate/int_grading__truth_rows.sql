{#-
  The references of the batch's tasks as M4Bench's ground-truth CSVs hold them,
  one row per (task, truth row) in the CSV's order (sorted by the key columns):
  every value rendered as text the way DuckDB -> pandas -> to_csv writes it, in
  the task's slots column_1 .. column_W.
  Built at run time from agent_outputs.task_settings and task_columns, so a
  batch only renders the references it needs, each once: a task sharing another's
  rendering (int_grading__truth_tasks, a -raw twin) has no rows of its own. A task
  whose reference lacks one of its columns gets a single row with truth_row NULL
  and reference_gaps set. The references are read through ref() (m4_reference_relations).
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set width = m4_grading_width() %}
{%- set truth_tasks = ref('int_grading__truth_tasks') %}
{%- set task_settings = ref('stg_agent_outputs__task_settings') %}
{%- set task_columns = ref('stg_agent_outputs__task_columns') %}
{%- set references = m4_reference_relations() %}
{%- set tasks = [] %}
{%- if execute %}
{%- set settings = run_query(
    "SELECT task, reference_model FROM " ~ task_settings
    ~ " WHERE task IN (SELECT truth_task FROM " ~ truth_tasks ~ ") ORDER BY task"
) %}
{%- for row in settings.rows %}
{%- set slots = run_query(
    "SELECT column_name, role, slot FROM " ~ task_columns
    ~ " WHERE task = '" ~ row['task'] ~ "' AND slot IS NOT NULL AND role IN ('key', 'scored') ORDER BY slot"
) %}
{#- none when the task names no reference model of this project (or variant of one), or it is not built -#}
{%- set relation = m4_graded_relation(row['reference_model'], references) %}
{%- set types = {} %}
{%- if relation is not none %}
{%- for column in adapter.get_columns_in_relation(relation) %}{% do types.update({column.name: column.dtype}) %}{% endfor %}
{%- endif %}
{%- set columns = {} %}
{%- set keys = [] %}
{%- set gaps = [] %}
{%- for slot in slots.rows %}
{%- do columns.update({slot['slot'] | int: slot['column_name']}) %}
{%- if slot['role'] == 'key' %}{% do keys.append(slot['column_name']) %}{% endif %}
{%- if slot['column_name'] not in types %}{% do gaps.append(slot['column_name']) %}{% endif %}
{%- endfor %}
{%- do tasks.append({'task': row['task'], 'relation': relation, 'model': row['reference_model'],
                     'columns': columns, 'keys': keys, 'types': types, 'gaps': gaps | unique | list}) %}
{%- endfor %}
{%- endif %}

WITH
{%- for task in tasks %}
rendered_{{ loop.index }} AS (
    {%- if task['gaps'] or task['relation'] is none %}
    SELECT
        '{{ task['task'] }}' AS task,
        CAST(NULL AS BIGINT) AS truth_row,
        '{{ task['model'] }} lacks {{ (task['gaps'] if task['relation'] is not none else ['the table']) | join(', ') }}' AS reference_gaps
        {%- for slot in range(1, width + 1) %},
        CAST(NULL AS VARCHAR) AS column_{{ slot }}
        {%- endfor %}
    {%- else %}
    SELECT
        '{{ task['task'] }}' AS task,
        ROW_NUMBER() OVER (
            ORDER BY {% for key in task['keys'] %}{{ adapter.quote(key) }} NULLS LAST{% if not loop.last %}, {% endif %}{% endfor %}
        ) AS truth_row,
        CAST(NULL AS VARCHAR) AS reference_gaps
        {%- for slot in range(1, width + 1) %},
        {%- if slot in task['columns'] %}
        {{ m4_render_reference_column(task['columns'][slot], task['types'][task['columns'][slot]]) }} AS column_{{ slot }}
        {%- else %}
        CAST(NULL AS VARCHAR) AS column_{{ slot }}
        {%- endif %}
        {%- endfor %}
    FROM {{ task['relation'] }}
    {%- endif %}
),
{%- endfor %}

rendered AS (
    {%- for task in tasks %}
    SELECT * FROM rendered_{{ loop.index }}
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}
    {%- if not tasks %}
    SELECT
        CAST(NULL AS VARCHAR) AS task,
        CAST(NULL AS BIGINT) AS truth_row,
        CAST(NULL AS VARCHAR) AS reference_gaps
        {%- for slot in range(1, width + 1) %},
        CAST(NULL AS VARCHAR) AS column_{{ slot }}
        {%- endfor %}
    WHERE FALSE
    {%- endif %}
)

SELECT * FROM rendered
