{#-
  Agent outputs and references are graded wide: a row holds a task's graded
  columns in slots column_1 .. column_W (key columns first, then scored columns;
  agent_outputs.task_columns.slot names them). These macros build the per-slot
  SQL; W is read from the source table at run time.
-#}

{#- The number of slots in agent_outputs.output_rows (1 while dbt parses). -#}
{% macro m4_grading_width() %}
    {%- set output_rows = ref('stg_agent_outputs__output_rows') -%}
    {%- if not execute -%}
        {{ return(1) }}
    {%- endif -%}
    {%- set ns = namespace(width=0) -%}
    {%- for column in adapter.get_columns_in_relation(output_rows) -%}
        {%- if column.name.startswith('column_') -%}{%- set ns.width = ns.width + 1 -%}{%- endif -%}
    {%- endfor -%}
    {{ return(ns.width) }}
{% endmacro %}

{#- The largest number of key columns of a task in the batch (1 while dbt parses). -#}
{% macro m4_grading_key_width() %}
    {%- set task_columns = ref('stg_agent_outputs__task_columns') -%}
    {%- if not execute -%}
        {{ return(1) }}
    {%- endif -%}
    {%- set result = run_query("SELECT COALESCE(MAX(slot), 1) FROM " ~ task_columns ~ " WHERE role = 'key'") -%}
    {{ return(result.columns[0].values()[0] | int) }}
{% endmacro %}

{#- `cells` (a query or relation with text columns column_1 .. column_<width>)
    with what each column's profile counts, per cell: computed once per cell, in
    three nested steps so each step reads the one before, and the costly ones
    only where they can hold (lazily, in CASE):
    1. its double (number_<slot>) and naive timestamp cast (cast_<slot>);
    2. what pandas reads it as (kind_<slot>, m4_cell_kind: missing, int, float,
       bool or text) and its timestamp shape (signature_<slot>, none for a number);
    3. its timestamp (timestamp_<slot>; timestamp_dm_<slot>: a day/month/year
       date read day first). -#}
{% macro m4_cell_features(cells, width) %}
    SELECT
        *
        {%- for slot in range(1, width + 1) %},
        {{ m4_timestamp_from('column_' ~ slot, 'signature_' ~ slot, 'cast_' ~ slot) }} AS timestamp_{{ slot }},
        {{ m4_day_first_timestamp('column_' ~ slot, 'signature_' ~ slot) }} AS timestamp_dm_{{ slot }}
        {%- endfor %}
    FROM (
        SELECT
            *
            {%- for slot in range(1, width + 1) %},
            {{ m4_cell_kind('column_' ~ slot, 'number_' ~ slot) }} AS kind_{{ slot }},
            CASE WHEN number_{{ slot }} IS NULL THEN {{ m4_signature_from('column_' ~ slot, 'cast_' ~ slot) }} END AS signature_{{ slot }}
            {%- endfor %}
        FROM (
            SELECT
                *
                {%- for slot in range(1, width + 1) %},
                {{ m4_double('column_' ~ slot) }} AS number_{{ slot }},
                {{ m4_timestamp_cast('column_' ~ slot) }} AS cast_{{ slot }}
                {%- endfor %}
            FROM {{ cells }}
        ) AS casts
    ) AS tests
{% endmacro %}

{#- Per-slot aggregates describing columns of text cells (column_<slot>, with
    the features of m4_cell_features; rows ordered by row_column): the counts
    pandas infers a dtype from, the first present value (its shape is the format
    pandas parses the column with), and the shapes and timestamp parses of the
    present values. -#}
{% macro m4_profile_aggregates(width, row_column) %}
    {%- for slot in range(1, width + 1) %}
        {%- set v = 'column_' ~ slot %}
        COUNT({{ v }}) AS n_present_{{ slot }},
        count_if({{ m4_is_number_kind('kind_' ~ slot) }}) AS n_float_{{ slot }},
        count_if(kind_{{ slot }} = 'int') AS n_int_{{ slot }},
        count_if(kind_{{ slot }} = 'bool') AS n_bool_{{ slot }},
        ARG_MIN({{ v }}, {{ row_column }}) FILTER (WHERE {{ v }} IS NOT NULL) AS first_value_{{ slot }},
        {{ m4_shape_bounds('signature_' ~ slot, slot) }},
        COUNT(timestamp_{{ slot }}) AS n_timestamp_{{ slot }},
        COUNT(timestamp_dm_{{ slot }}) AS n_timestamp_dm_{{ slot }}
        {%- if not loop.last %},{% endif %}
    {%- endfor %}
{% endmacro %}

{#- No rows, with typed columns: `columns` is a list of (name, SQL type) pairs. It
    closes the per-task unions of the grading models (`... UNION ALL` after each
    task), so a batch without tasks still has the model's columns. -#}
{% macro m4_no_rows(columns) %}
SELECT
    {%- for name, type in columns %}
    CAST(NULL AS {{ type }}) AS {{ name }}{% if not loop.last %},{% endif %}
    {%- endfor %}
WHERE FALSE
{% endmacro %}

{#- Wide per-slot columns (<field>_<slot>) of `relation` as one row per (owner columns, slot). -#}
{% macro m4_unpivot_slots(relation, owner, slots, fields) %}
    {%- for slot in slots %}
    SELECT
        {{ owner }},
        {{ slot }} AS slot
        {%- for field in fields %},
        {{ field }}_{{ slot }} AS {{ field }}
        {%- endfor %}
    FROM {{ relation }}
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}
{% endmacro %}

{#- `relation` (with a column's first_value) with the first value's shape, exact
    case (first_signature) and any case (first_signature_any), and whether pandas
    reads the column day first (day_first). -#}
{% macro m4_first_value_reading(relation) %}
    SELECT *, {{ m4_day_first('first_value', 'first_signature') }} AS day_first
    FROM (
        SELECT
            *,
            {{ m4_signature('first_value', exact_case=true) }} AS first_signature,
            {{ m4_signature('first_value') }} AS first_signature_any
        FROM {{ relation }}
    ) AS shaped
{% endmacro %}

{#- The wide aggregates of m4_profile_aggregates as one row per (owner, slot),
    with the pandas dtype, the key kind a key column normalises to (numeric where
    every value parses, else timestamp, else text), whether every present value
    parses as a timestamp in the format of the first one, and its time zone. -#}
{% macro m4_profile_rows(aggregates, owner, n_rows, width) %}
WITH long AS (
    {{ m4_unpivot_slots(aggregates, owner ~ ', ' ~ n_rows, range(1, width + 1),
                        ['n_present', 'n_float', 'n_int', 'n_bool', 'first_value', 'min_signature',
                         'max_signature', 'min_signature_b', 'max_signature_b', 'n_timestamp', 'n_timestamp_dm']) }}
),

typed AS (
    {{ m4_first_value_reading('long') }}
),

profiled AS (
    SELECT
        *,
        {{ m4_column_dtype('n_rows', 'n_present', 'n_int', 'n_float', 'n_bool') }} AS dtype,
        n_present = 0 OR COALESCE(
            {{ m4_same_shape('first_signature', '', 'first_signature_any') }}
                AND CASE WHEN day_first THEN n_timestamp_dm ELSE n_timestamp END = n_present,
            FALSE
        ) AS all_timestamps
    FROM typed
)

SELECT
    *,
    CASE
        WHEN n_float = n_rows OR dtype = 'bool' THEN 'numeric'
        WHEN all_timestamps AND n_present = n_rows THEN 'timestamp'
        ELSE 'text'
    END AS key_kind,
    COALESCE({{ m4_has_time_zone('first_signature') }}, FALSE) AS has_time_zone
FROM profiled
{% endmacro %}


{#- The key of a comparable run's row as typed parts (key_number_<slot>,
    key_timestamp_<slot>, key_text_<slot>), compiled for one task: a run whose key
    kinds or time zones differ from the reference's cannot be merged (it fails
    before comparing), so every comparable run of a task has the reference's key
    kinds, and only the part of that kind is computed (the others are NULL).
    `keys` is the task's entry of m4_grading_plan; `dtypes` prefixes the
    run's key dtype columns (<dtypes><slot>), `day_firsts` its columns telling
    whether a key column is read day first. -#}
{% macro m4_typed_key_parts(keys, key_width, cells, dtypes, day_firsts=none) %}
    {%- for slot in range(1, key_width + 1) %}
    {%- set key = keys.get(slot) %}
    {%- set value = cells ~ 'column_' ~ slot %}
    {%- if key and key['kind'] == 'numeric' %}{{ m4_numeric(value, dtypes ~ slot) }}{% else %}CAST(NULL AS DOUBLE){% endif %} AS key_number_{{ slot }},
    {%- if key and key['kind'] == 'timestamp' %}{{ m4_key_timestamp_of(value, key['has_time_zone'], day_firsts ~ slot if day_firsts else none) }}{% else %}CAST(NULL AS TIMESTAMP){% endif %} AS key_timestamp_{{ slot }},
    {%- if key and key['kind'] == 'text' %}{{ m4_key_text_of(value, dtypes ~ slot) }}{% else %}CAST(NULL AS VARCHAR){% endif %} AS key_text_{{ slot }}
    {%- if not loop.last %},{% endif %}
    {%- endfor %}
{% endmacro %}

{#- The parts a task's keys are made of (one per key slot, of its kind): the
    columns to group and join on. -#}
{% macro m4_typed_key_columns(keys) -%}
    {%- set columns = [] -%}
    {%- for slot, key in keys | dictsort -%}
        {%- do columns.append({'numeric': 'key_number_', 'timestamp': 'key_timestamp_', 'text': 'key_text_'}[key['kind']] ~ slot) -%}
    {%- endfor -%}
    {{ return(columns) }}
{%- endmacro %}

{#- Join condition on a task's typed key parts (never NULL for a comparable run or a truth row). -#}
{% macro m4_same_typed_key(keys, left, right) -%}
    {%- for column in m4_typed_key_columns(keys) -%}
    {{ left }}.{{ column }} = {{ right }}.{{ column }}{% if not loop.last %} AND {% endif %}
    {%- endfor -%}
{%- endmacro %}

{#- The batch's tasks, grouped by what their comparison reads, for the models
    that compile one query per group: tasks sharing a rendering of their
    reference (int_grading__truth_tasks: the same reference, key and scored
    columns) and their tolerances (a task and its -raw twin) are compared
    against the same truth, so their runs go through one query (17
    queries for M4Bench's 28 tasks: less SQL for DuckDB to plan). A list of
    {task, tasks, truth_task, truth_rows, keys: {slot: {kind, has_time_zone}},
    columns: [{slot, column_name, tolerance, temporal}]}:
    `tasks` the group's tasks, `task` the first of them, `truth_task` the task
    whose rendering of the reference (int_grading__truth_values, see
    int_grading__truth_tasks) every run of the group is merged with;
    the reference's row count (truth rows are numbered 1 .. truth_rows), its key
    columns, and the scored columns (their tolerances become constants; temporal
    means the truth column can compare as timestamps: it looks temporal and
    every value parses). Tasks whose reference could not be profiled are left
    out: none of their runs is comparable. Empty while dbt parses. -#}
{% macro m4_grading_plan() %}
    {#- (the relations it reads, named before dbt parses: its graph holds the dependencies) -#}
    {%- set task_columns = ref('stg_agent_outputs__task_columns') -%}
    {%- set truth_tasks = ref('int_grading__truth_tasks') -%}
    {%- set truth_profiles = ref('int_grading__truth_profiles') -%}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set keys = run_query(
        "SELECT c.task, t.truth_task, c.slot, p.key_kind, p.has_time_zone, p.n_rows "
        ~ "FROM " ~ task_columns ~ " AS c "
        ~ "INNER JOIN " ~ truth_tasks ~ " AS t ON c.task = t.task "
        ~ "INNER JOIN " ~ truth_profiles ~ " AS p ON c.task = p.task AND c.slot = p.slot "
        ~ "WHERE c.role = 'key' ORDER BY c.task, c.slot"
    ) -%}
    {%- set scored = run_query(
        "SELECT c.task, c.slot, c.column_name, COALESCE(c.tolerance, 0) AS tolerance, "
        ~ "COALESCE(p.looks_temporal AND p.all_timestamps, FALSE) AS temporal "
        ~ "FROM " ~ task_columns ~ " AS c "
        ~ "LEFT JOIN " ~ truth_profiles ~ " AS p ON c.task = p.task AND c.slot = p.slot "
        ~ "WHERE c.role = 'scored' ORDER BY c.task, c.slot"
    ) -%}
    {%- set tasks = [] -%}
    {%- set by_task = {} -%}
    {%- for row in keys.rows -%}
        {%- if row['task'] not in by_task -%}
            {%- do by_task.update({row['task']: {'task': row['task'], 'tasks': [row['task']], 'keys': {}, 'columns': [],
                                                  'truth_task': row['truth_task'], 'truth_rows': row['n_rows'] | int}}) -%}
            {%- do tasks.append(by_task[row['task']]) -%}
        {%- endif -%}
        {%- do by_task[row['task']]['keys'].update({row['slot'] | int: {
            'kind': row['key_kind'], 'has_time_zone': row['has_time_zone'] == true}}) -%}
    {%- endfor -%}
    {%- for row in scored.rows if row['task'] in by_task -%}
        {%- do by_task[row['task']]['columns'].append({
            'slot': row['slot'] | int, 'column_name': row['column_name'],
            'tolerance': row['tolerance'] | float, 'temporal': row['temporal']}) -%}
    {%- endfor -%}
    {%- set plan = [] -%}
    {%- set by_shape = {} -%}
    {%- for task in tasks -%}
        {#- tasks sharing a truth task share its reference, key columns, truth rows and profiles: what can
            still differ is the scored columns' tolerances -#}
        {%- set shape = [task['truth_task'], task['columns']] | string -%}
        {%- if shape in by_shape -%}
            {%- do by_shape[shape]['tasks'].append(task['task']) -%}
        {%- else -%}
            {%- do by_shape.update({shape: task}) -%}
            {%- do plan.append(task) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(plan) }}
{% endmacro %}

{#- The runs of a plan entry's tasks (m4_grading_plan) in `runs_by_task` (see
    m4_runs_by_task), as one SQL list; empty when there are none. -#}
{% macro m4_plan_runs(runs_by_task, entry) %}
    {%- set lists = [] -%}
    {%- for task in entry['tasks'] if task in runs_by_task %}{% do lists.append(runs_by_task[task]) %}{% endfor -%}
    {{ return(lists | join(', ')) }}
{% endmacro %}

{#- The runs of each task with a column compared as text (after int_grading__column_modes
    is built): {task: 'run_number, run_number, ...'}. Empty while dbt parses. -#}
{% macro m4_grading_text_runs() %}
    {{ return(m4_runs_by_task(ref('int_grading__column_modes'), "mode = 'text'")) }}
{% endmacro %}

{#- The runs of each task that repeat a truth key (after int_grading__run_keys is
    built), as m4_grading_text_runs lists them. -#}
{% macro m4_grading_runs_repeating_keys() %}
    {{ return(m4_runs_by_task(ref('int_grading__run_keys'), 'repeats_truth_keys')) }}
{% endmacro %}

{#- {task: 'run_number, run_number, ...'} for the runs with a row of `relation`
    (which has run_number) meeting `condition`. Empty while dbt parses. -#}
{% macro m4_runs_by_task(relation, condition) %}
    {%- set runs = ref('int_grading__runs') -%}
    {%- if not execute -%}
        {{ return({}) }}
    {%- endif -%}
    {%- set result = run_query(
        "SELECT runs.task, STRING_AGG(DISTINCT CAST(selected.run_number AS VARCHAR), ', ') AS run_numbers "
        ~ "FROM " ~ relation ~ " AS selected "
        ~ "INNER JOIN " ~ runs ~ " AS runs ON selected.run_number = runs.run_number "
        ~ "WHERE " ~ condition ~ " GROUP BY runs.task"
    ) -%}
    {%- set by_task = {} -%}
    {%- for row in result.rows -%}
        {%- do by_task.update({row['task']: row['run_numbers']}) -%}
    {%- endfor -%}
    {{ return(by_task) }}
{% endmacro %}
