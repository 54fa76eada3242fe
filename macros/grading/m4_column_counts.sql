{#- One row per (comparable run, scored slot) of the plan entries `entries`
  (m4_grading_plan; `inputs`, the relations m4_merge_inputs names): one pass over the merged
  rows (m4_merged_rows), compiled per group of tasks sharing a reference and its columns (only
  their slots, their tolerances as constants), counting
  - over every agent row, what pandas infers the agent column's dtype from (the kinds of its
    cells, m4_cell_kind);
  - over the merged rows, what the numeric and text comparisons need: cells present on both
    sides, agent cells that are not numbers, cells missing on both sides, and numeric matches
    (m4_values_match of the truth's number and the agent's: a number, or 1 / 0 for a boolean).
  Each cell is told by its kind and named booleans. An agent cell carrying the truth's text
  reads as the truth cell does (its kind and number are the truth's, int_grading__truth_values),
  so only the other cells are cast. Most rows of an output read alike: grouped by what their
  cells are, they become few rows, and every count is read off the groups. Timestamp columns
  are counted apart (m4_timestamp_counts); text matches afterwards, only where they decide
  (int_grading__text_matches).
-#}
{% macro m4_column_counts(entries, inputs) %}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
{%- set plan = [] %}
{%- for task in entries if task['columns'] %}{% do plan.append(task) %}{% endfor %}
{%- if plan %}
WITH
{%- for task in plan %}
{%- set task_index = loop.index %}
cells_{{ task_index }} AS (
    SELECT
        run_number,
        truth_row,
        merged
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %}
        {%- set agent = 'agent_' ~ slot %},
        {{ agent }},
        truth_present_{{ slot }},
        truth_number_{{ slot }},
        -- an agent cell carrying the truth's text reads as the truth cell does
        {{ m4_same_text(agent, 'truth_render_' ~ slot) }} AS same_text_{{ slot }},
        truth_kind_{{ slot }}
        {%- endfor %}
    FROM ({{ m4_merged_rows(task, width, key_width, inputs) }}) AS merged_rows
),

numbered_{{ task_index }} AS (
    SELECT
        *
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        {{ m4_read_number('agent_' ~ slot, 'same_text_' ~ slot, 'truth_number_' ~ slot) }} AS number_{{ slot }}
        {%- endfor %}
    FROM cells_{{ task_index }}
),

kinded_{{ task_index }} AS (
    SELECT
        *
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        {{ m4_read_kind('agent_' ~ slot, 'same_text_' ~ slot, 'truth_kind_' ~ slot, 'number_' ~ slot) }} AS kind_{{ slot }}
        {%- endfor %}
    FROM numbered_{{ task_index }}
),

grouped_{{ task_index }} AS (
    -- most rows of an output read alike: grouped by what each cell is, they become few rows
    SELECT
        run_number,
        merged,
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %}
        {%- set agent = 'agent_' ~ slot %}
        kind_{{ slot }},
        truth_present_{{ slot }},
        {{ m4_values_match('truth_number_' ~ slot, m4_cell_number(agent, 'kind_' ~ slot, 'number_' ~ slot),
                           'CAST(' ~ column['tolerance'] ~ ' AS DOUBLE)') }} AS numeric_match_{{ slot }},
        {%- endfor %}
        COUNT(*) AS n_rows
    FROM kinded_{{ task_index }}
    GROUP BY ALL
),
{%- endfor %}

-- one row per (group of rows, slot): what the group's cells are
cells AS (
    {%- for task in plan %}
    SELECT
        run_number,
        merged,
        n_rows,
        UNNEST([
            {%- for column in task['columns'] %}
            {%- set slot = column['slot'] %}
            {slot: {{ slot }}, kind: kind_{{ slot }}, truth_present: truth_present_{{ slot }}, numeric_match: numeric_match_{{ slot }}}
            {%- if not loop.last %},{% endif %}
            {%- endfor %}
        ], max_depth := 2)
    FROM grouped_{{ loop.index }}
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}
),

cell_counts AS (
    SELECT
        run_number,
        slot,
        {{ m4_count_rows("kind <> 'missing'") }} AS n_present,
        {{ m4_count_rows(m4_is_number_kind('kind')) }} AS n_float,
        {{ m4_count_rows("kind = 'int'") }} AS n_int,
        {{ m4_count_rows("kind = 'bool'") }} AS n_bool,
        {{ m4_count_rows("merged AND kind <> 'missing' AND truth_present") }} AS both_present,
        {{ m4_count_rows("merged AND kind <> 'missing' AND truth_present AND NOT " ~ m4_is_number_kind('kind')) }} AS agent_not_float,
        {{ m4_count_rows("merged AND kind = 'missing' AND NOT truth_present") }} AS missing_on_both,
        {{ m4_count_rows('merged AND numeric_match AND ' ~ m4_is_number_kind('kind')) }} AS numeric_matches,
        {{ m4_count_rows("merged AND numeric_match AND kind = 'bool'") }} AS bool_numeric_matches
    FROM cells
    GROUP BY run_number, slot
)

SELECT * FROM cell_counts
{%- else %}
{{ m4_no_rows([
    ('run_number', 'INTEGER'), ('slot', 'INTEGER'), ('n_present', 'BIGINT'), ('n_float', 'BIGINT'),
    ('n_int', 'BIGINT'), ('n_bool', 'BIGINT'), ('both_present', 'BIGINT'), ('agent_not_float', 'BIGINT'),
    ('missing_on_both', 'BIGINT'), ('numeric_matches', 'BIGINT'), ('bool_numeric_matches', 'BIGINT')
]) }}
{%- endif %}
{% endmacro %}

{#- The rows of the groups (n_rows) meeting `condition`, 0 when none does. -#}
{% macro m4_count_rows(condition) -%}
    COALESCE(CAST(SUM(n_rows) FILTER (WHERE {{ condition }}) AS BIGINT), 0)
{%- endmacro %}
