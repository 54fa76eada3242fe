{#-
  M4Bench's merge of agent rows with their truth rows, as SQL compiled for one
  entry of m4_grading_plan: a task, or the tasks that share its reference and
  columns (a task and its -raw twin), whose runs all merge with the truth rows
  of the entry's truth task (int_grading__truth_tasks). The models that read the keyed rows (int_grading__run_keys,
  int_grading__repeated_keys) or the merged
  rows (m4_column_counts, int_grading__text_matches) inline these
  queries per entry: a union of every task's query behind a view cost DuckDB
  seconds of planning for each use.
-#}

{#- The rows of the entry's tasks' comparable runs with their normalised key (typed parts,
    as for the truth in int_grading__truth_values): a comparable run's key
    columns have the reference's kinds, so each key slot gets the one part of
    its kind (m4_typed_key_parts); and the slots column_1 .. column_<width>.
    Only the runs in `runs` (a SQL list of run numbers), when given: as
    constants, so only their files are read. -#}
{% macro m4_agent_rows(task, width, key_width, inputs, runs=none) %}
    SELECT
        runs.run_number,
        output_rows.row_number,
        {{ m4_typed_key_parts(task['keys'], key_width, 'output_rows.', 'runs.key_dtype_', 'runs.key_day_first_') }}
        {%- for slot in range(1, width + 1) %},
        output_rows.column_{{ slot }}
        {%- endfor %}
    FROM {{ inputs['output_rows'] }} AS output_rows
    INNER JOIN {{ inputs['runs'] }} AS runs
        ON output_rows.run_number = runs.run_number
    WHERE output_rows.task IN ('{{ task['tasks'] | join("', '") }}')
        AND runs.run_error IS NULL
        {%- if runs %}
        AND output_rows.run_number IN ({{ runs }})
        {%- endif %}
{% endmacro %}

{#- The rows of the entry's tasks' comparable runs (only `runs`, see m4_agent_rows) with
    their normalised key (key_number_<slot>, key_timestamp_<slot>,
    key_text_<slot>: the parts of the task's key kinds, m4_typed_key_columns) and
    the truth row of that key (NULL for a key the truth lacks). Only the key
    parts of the truth are read. -#}
{% macro m4_keyed_rows(task, key_width, inputs, runs=none) %}
    SELECT
        agent.run_number,
        agent.row_number,
        {%- for column in m4_typed_key_columns(task['keys']) %}
        agent.{{ column }},
        {%- endfor %}
        truth.truth_row
    FROM ({{ m4_agent_rows(task, 0, key_width, inputs, runs) }}) AS agent
    LEFT JOIN {{ inputs['truth_values'] }} AS truth
        ON truth.task = '{{ task['truth_task'] }}'
        AND {{ m4_same_typed_key(task['keys'], 'agent', 'truth') }}
{% endmacro %}

{#- Every row of the task's comparable runs (only `runs`, see m4_agent_rows) with
    the truth row of its key (NULL for a key the truth lacks) and `merged`, true for the first row of a key the
    truth has (the row the left merge keeps); per slot the agent's text
    (agent_<slot>) beside what the comparison reads of the truth cell (see
    int_grading__truth_values). Truth rows
    the agent lacks are left out: they never match. -#}
{% macro m4_merged_rows(task, width, key_width, inputs, runs=none) %}
    SELECT
        agent.run_number,
        agent.row_number,
        truth.truth_row,
        truth.truth_row IS NOT NULL
            AND (repeated_keys.kept_row IS NULL OR repeated_keys.kept_row = agent.row_number) AS merged
        {%- for slot in range(1, width + 1) %},
        agent.column_{{ slot }} AS agent_{{ slot }},
        truth.render_{{ slot }} IS NOT NULL AS truth_present_{{ slot }},
        truth.number_{{ slot }} AS truth_number_{{ slot }},
        truth.render_{{ slot }} AS truth_render_{{ slot }},
        truth.kind_{{ slot }} AS truth_kind_{{ slot }},
        truth.timestamp_{{ slot }} AS truth_timestamp_{{ slot }}
        {%- endfor %}
    FROM ({{ m4_agent_rows(task, width, key_width, inputs, runs) }}) AS agent
    LEFT JOIN {{ inputs['truth_values'] }} AS truth
        ON truth.task = '{{ task['truth_task'] }}'
        AND {{ m4_same_typed_key(task['keys'], 'agent', 'truth') }}
    LEFT JOIN {{ inputs['repeated_keys'] }} AS repeated_keys
        ON agent.run_number = repeated_keys.run_number
        AND truth.truth_row = repeated_keys.truth_row
{% endmacro %}

{#- The relations the merge reads (m4_agent_rows, m4_keyed_rows, m4_merged_rows take them as
    `inputs`): the agent rows, the runs, the truth values and, with `repeated_keys`, the repeated
    keys. Called at the top of a model, so dbt's graph holds these dependencies even while it
    parses (when the per-task SQL is not compiled yet). -#}
{% macro m4_merge_inputs(repeated_keys=true) %}
    {%- set inputs = {
        'output_rows': ref('stg_agent_outputs__output_rows'),
        'runs': ref('int_grading__runs'),
        'truth_values': ref('int_grading__truth_values'),
    } -%}
    {%- if repeated_keys %}{% do inputs.update({'repeated_keys': ref('int_grading__repeated_keys')}) %}{% endif -%}
    {{ return(inputs) }}
{% endmacro %}
