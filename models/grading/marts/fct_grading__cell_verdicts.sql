{#-
  One row per (comparable run, truth row, key or scored column of its task): the
  reference's cell and the agent's as their CSVs hold them, and for a scored
  column the verdict of the column's comparison (int_grading__column_modes) on
  that cell, composed of the same rule macros the counts use:
  - 'match' or 'mismatch' for a truth row whose key the output has (the first
    output row of that key, as M4Bench's merge keeps it): missing on both sides
    matches; numbers by m4_values_match (booleans as 1 and 0); timestamps by
    m4_values_match in microseconds, each cell parsed in its own format, day
    first where the column's first value is; text by m4_texts_match; a column
    whose comparison raises matches nowhere;
  - 'missing' for a truth row whose key the output lacks, or a column it lacks;
  NULL for a key column (the row's key, as the reference writes it).
  Every cell of every run, so it is built only on request: `m4agent view` asks
  for it (grade.cell_verdicts, tag grading_cells); a grading call leaves it out.
  Summed per run and column, the matches are fct_grading__column_scores.matched
  (tests/test_cell_verdicts.py).
-#}
{{ config(enabled=var('m4_grading', false), tags=['grading_cells']) }}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
{%- set inputs = m4_merge_inputs() %}
{%- set plan = [] %}
{%- for task in m4_grading_plan() if task['columns'] %}{% do plan.append(task) %}{% endfor %}
WITH modes AS (
    SELECT
        modes.run_id,
        modes.run_number,
        modes.slot,
        modes.column_name,
        modes.mode,
        modes.agent_dtype,
        COALESCE(timestamps.day_first, FALSE) AS day_first
    FROM {{ ref('int_grading__column_modes') }} AS modes
    LEFT JOIN {{ ref('int_grading__timestamp_counts') }} AS timestamps
        ON modes.run_number = timestamps.run_number
        AND modes.slot = timestamps.slot
),

merged_cells AS (
    {%- for task in plan %}
    SELECT
        run_number,
        truth_row,
        UNNEST([
            {%- for column in task['columns'] %}
            {%- set slot = column['slot'] %}
            {
                slot: {{ slot }},
                tolerance: CAST({{ column['tolerance'] }} AS DOUBLE),
                agent: agent_{{ slot }},
                truth_present: truth_present_{{ slot }},
                truth_number: truth_number_{{ slot }},
                truth_render: truth_render_{{ slot }},
                truth_kind: truth_kind_{{ slot }},
                truth_timestamp: truth_timestamp_{{ slot }}
            }
            {%- if not loop.last %},{% endif %}
            {%- endfor %}
        ], max_depth := 2)
    FROM ({{ m4_merged_rows(task, width, key_width, inputs) }}) AS merged_rows
    WHERE merged
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}
    {%- if not plan %}
    SELECT
        CAST(NULL AS INTEGER) AS run_number, CAST(NULL AS BIGINT) AS truth_row, CAST(NULL AS INTEGER) AS slot,
        CAST(NULL AS DOUBLE) AS tolerance, CAST(NULL AS VARCHAR) AS agent, CAST(NULL AS BOOLEAN) AS truth_present,
        CAST(NULL AS DOUBLE) AS truth_number, CAST(NULL AS VARCHAR) AS truth_render,
        {{ m4_kind('missing') }} AS truth_kind, CAST(NULL AS TIMESTAMP) AS truth_timestamp
    WHERE FALSE
    {%- endif %}
),

read_cells AS (
    -- what the comparison reads of the agent's cell, as int_grading__cell_counts reads it
    SELECT
        *,
        {{ m4_same_text('agent', 'truth_render') }} AS same_text
    FROM merged_cells
),

numbered_cells AS (
    SELECT
        *,
        {{ m4_read_number('agent', 'same_text', 'truth_number') }} AS number
    FROM read_cells
),

kinded_cells AS (
    SELECT
        *,
        {{ m4_read_kind('agent', 'same_text', 'truth_kind', 'number') }} AS kind
    FROM numbered_cells
),

compared AS (
    SELECT
        modes.run_id,
        cells.run_number,
        cells.truth_row,
        modes.slot,
        modes.column_name,
        cells.agent,
        CASE
            WHEN modes.mode = 'error' THEN FALSE
            WHEN cells.kind = 'missing' AND NOT cells.truth_present THEN TRUE
            WHEN modes.mode = 'numeric' THEN
                {{ m4_values_match('cells.truth_number', m4_cell_number('cells.agent', 'cells.kind', 'cells.number'), 'cells.tolerance') }}
                AND CASE WHEN {{ m4_is_bool_dtype('modes.agent_dtype') }} THEN cells.kind = 'bool'
                         ELSE {{ m4_is_number_kind('cells.kind') }} END
            WHEN modes.mode = 'timestamp' THEN {{ m4_timestamps_match(
                'cells.truth_timestamp',
                'CASE WHEN modes.day_first THEN ' ~ m4_day_first_timestamp('cells.agent', m4_signature('cells.agent'))
                    ~ ' ELSE ' ~ m4_timestamp_from('cells.agent', m4_signature('cells.agent')) ~ ' END',
                'cells.tolerance') }}
            ELSE {{ m4_texts_match('cells.truth_render', 'cells.agent', 'modes.agent_dtype') }}
        END AS matched
    FROM kinded_cells AS cells
    INNER JOIN modes
        ON cells.run_number = modes.run_number
        AND cells.slot = modes.slot
),

truth_cells AS (
    -- every truth row of every comparable run, with the reference's text of its key and scored columns
    SELECT
        runs.run_id,
        runs.run_number,
        truth.truth_row,
        task_columns.slot,
        task_columns.column_name,
        task_columns.role,
        CASE task_columns.slot
            {%- for slot in range(1, width + 1) %}
            WHEN {{ slot }} THEN truth.column_{{ slot }}
            {%- endfor %}
        END AS truth_value
    FROM {{ ref('int_grading__runs') }} AS runs
    INNER JOIN {{ ref('stg_agent_outputs__task_columns') }} AS task_columns
        ON runs.task = task_columns.task
        AND task_columns.role IN ('key', 'scored')
        AND task_columns.slot IS NOT NULL
    INNER JOIN {{ ref('int_grading__truth_tasks') }} AS truth_tasks
        ON runs.task = truth_tasks.task
    INNER JOIN {{ ref('int_grading__truth_rows') }} AS truth
        ON truth_tasks.truth_task = truth.task
    WHERE runs.run_error IS NULL
        AND truth.truth_row IS NOT NULL
)

SELECT
    truth_cells.run_id,
    truth_cells.truth_row,
    truth_cells.slot,
    truth_cells.column_name,
    truth_cells.role,
    truth_cells.truth_value,
    compared.agent AS agent_value,
    CASE
        WHEN truth_cells.role = 'key' THEN NULL
        WHEN compared.truth_row IS NULL THEN 'missing'
        WHEN compared.matched THEN 'match'
        ELSE 'mismatch'
    END AS verdict
FROM truth_cells
LEFT JOIN compared
    ON truth_cells.run_number = compared.run_number
    AND truth_cells.truth_row = compared.truth_row
    AND truth_cells.slot = compared.slot
