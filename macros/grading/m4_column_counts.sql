{#- One row per (comparable run, scored slot) of the plan entries `entries`
  (m4_grading_plan; `inputs`, the relations m4_merge_inputs names): one pass over the merged rows (m4_merged_rows), compiled per
  group of tasks sharing a reference and its columns (only their slots, their
  tolerances as constants), counting
  - over every agent row, what pandas infers the agent column's dtype from (the
    kinds of its cells, m4_cell_kind);
  - over the merged rows, what the comparison modes need: cells present on both
    sides, agent cells that are not numbers, cells missing on both sides,
    numeric matches (m4_values_match of the truth's number and the agent's: a
    number, or 1 / 0 for a boolean) and, for truth columns that can compare as
    timestamps, the agent's first value (its format), the shapes and parses of
    the agent cells, and timestamp matches (m4_values_match in microseconds),
    with day/month/year dates read day first when the first value is (pandas
    reads every value in the format of the first).
  Each cell is told by named booleans and its kind. An agent cell carrying the
  truth's text reads as the truth cell does: its kind and number are the truth's
  (int_grading__truth_values), so only the other cells are cast.
  Text comparisons are counted afterwards, only where they decide
  (int_grading__text_matches).
-#}
{% macro m4_column_counts(entries, inputs) %}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
{%- set plan = [] %}
{%- for task in entries if task['columns'] %}{% do plan.append(task) %}{% endfor %}
{%- set timed = ['first_row', 'first_value', 'min_signature', 'max_signature', 'min_signature_b', 'max_signature_b',
                 'both_timestamps', 'timestamp_matches', 'both_timestamps_dm', 'timestamp_matches_dm'] %}
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
        COALESCE({{ agent }} = truth_render_{{ slot }}, FALSE) AS same_text_{{ slot }},
        truth_kind_{{ slot }}
        {%- if column['temporal'] %},
        truth_timestamp_{{ slot }},
        {{ m4_signature(agent) }} AS signature_{{ slot }}
        {%- endif %}
        {%- endfor %}
    FROM ({{ m4_merged_rows(task, width, key_width, inputs) }}) AS merged_rows
),

numbered_{{ task_index }} AS (
    SELECT
        *
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        CASE WHEN same_text_{{ slot }} THEN truth_number_{{ slot }} ELSE {{ m4_double('agent_' ~ slot) }} END AS number_{{ slot }}
        {%- endfor %}
    FROM cells_{{ task_index }}
),

kinded_{{ task_index }} AS (
    SELECT
        *
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        CASE WHEN same_text_{{ slot }} THEN truth_kind_{{ slot }} ELSE {{ m4_cell_kind('agent_' ~ slot, 'number_' ~ slot) }} END AS kind_{{ slot }}
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
        {%- for column in task['columns'] if column['temporal'] %}
        {%- set slot = column['slot'] %}
        {%- set agent = 'agent_' ~ slot %}
        {%- set both = 'merged AND truth_present_' ~ slot ~ ' AND ' ~ agent ~ ' IS NOT NULL' %}
        {%- set tolerance = 'CAST(' ~ column['tolerance'] ~ ' AS DOUBLE) * 1000000' %}
        {%- set truth_us = 'CAST(epoch_us(truth_timestamp_' ~ slot ~ ') AS HUGEINT)' %},
        MIN(truth_row) FILTER (WHERE merged AND {{ agent }} IS NOT NULL) AS first_row_{{ slot }},
        ARG_MIN({{ agent }}, truth_row) FILTER (WHERE merged AND {{ agent }} IS NOT NULL) AS first_value_{{ slot }},
        {{ m4_shape_bounds('signature_' ~ slot, slot, both) }},
        count_if({{ both }} AND timestamp_{{ slot }} IS NOT NULL) AS both_timestamps_{{ slot }},
        count_if(merged AND {{ m4_values_match(truth_us, 'epoch_us(timestamp_' ~ slot ~ ')', tolerance) }}) AS timestamp_matches_{{ slot }},
        count_if({{ both }} AND timestamp_dm_{{ slot }} IS NOT NULL) AS both_timestamps_dm_{{ slot }},
        count_if(merged AND {{ m4_values_match(truth_us, 'epoch_us(timestamp_dm_' ~ slot ~ ')', tolerance) }}) AS timestamp_matches_dm_{{ slot }}
        {%- endfor %}
    FROM (
        SELECT
            *
            {%- for column in task['columns'] if column['temporal'] %}
            {%- set slot = column['slot'] %},
            {{ m4_timestamp_from('agent_' ~ slot, 'signature_' ~ slot) }} AS timestamp_{{ slot }},
            -- a day/month/year date, for runs whose first value is read day first (m4_day_first)
            {{ m4_day_first_timestamp('agent_' ~ slot, 'signature_' ~ slot) }} AS timestamp_dm_{{ slot }}
            {%- endfor %}
        FROM kinded_{{ task_index }}
    ) AS timed
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
),

-- the timestamp counts of the columns that can compare as timestamps, one row per (group, slot)
timestamp_groups AS (
    {%- for task in plan %}
    {%- set slots = task['columns'] | selectattr('temporal') | map(attribute='slot') | list %}
    {%- if slots %}
    {{ m4_unpivot_slots('grouped_' ~ loop.index, 'run_number', slots, timed) }}
    UNION ALL
    {%- endif %}
    {%- endfor %}
    {{ m4_no_rows([('run_number', 'INTEGER'), ('slot', 'INTEGER'), ('first_row', 'BIGINT'), ('first_value', 'VARCHAR'),
                   ('min_signature', 'VARCHAR'), ('max_signature', 'VARCHAR'), ('min_signature_b', 'VARCHAR'),
                   ('max_signature_b', 'VARCHAR'), ('both_timestamps', 'BIGINT'), ('timestamp_matches', 'BIGINT'),
                   ('both_timestamps_dm', 'BIGINT'), ('timestamp_matches_dm', 'BIGINT')]) }}
),

timestamp_counts AS (
    SELECT
        run_number,
        slot,
        ARG_MIN(first_value, first_row) AS first_value,
        MIN(min_signature) AS min_signature,
        MAX(max_signature) AS max_signature,
        MIN(min_signature_b) AS min_signature_b,
        MAX(max_signature_b) AS max_signature_b,
        CAST(SUM(both_timestamps) AS BIGINT) AS both_timestamps,
        CAST(SUM(timestamp_matches) AS BIGINT) AS timestamp_matches,
        CAST(SUM(both_timestamps_dm) AS BIGINT) AS both_timestamps_dm,
        CAST(SUM(timestamp_matches_dm) AS BIGINT) AS timestamp_matches_dm
    FROM timestamp_groups
    GROUP BY run_number, slot
),

by_slot AS (
    SELECT
        cell_counts.*,
        timestamp_counts.first_value,
        timestamp_counts.min_signature,
        timestamp_counts.max_signature,
        timestamp_counts.min_signature_b,
        timestamp_counts.max_signature_b,
        COALESCE(timestamp_counts.both_timestamps, 0) AS both_timestamps,
        COALESCE(timestamp_counts.timestamp_matches, 0) AS timestamp_matches,
        COALESCE(timestamp_counts.both_timestamps_dm, 0) AS both_timestamps_dm,
        COALESCE(timestamp_counts.timestamp_matches_dm, 0) AS timestamp_matches_dm
    FROM cell_counts
    LEFT JOIN timestamp_counts
        ON cell_counts.run_number = timestamp_counts.run_number
        AND cell_counts.slot = timestamp_counts.slot
)

SELECT
    * EXCLUDE (first_value, day_first, both_timestamps, timestamp_matches, both_timestamps_dm, timestamp_matches_dm),
    CASE WHEN day_first THEN both_timestamps_dm ELSE both_timestamps END AS both_timestamps,
    CASE WHEN day_first THEN timestamp_matches_dm ELSE timestamp_matches END AS timestamp_matches
FROM (
    {{ m4_first_value_reading('by_slot') }}
) AS first_read
{%- else %}
{{ m4_no_rows([
    ('run_number', 'INTEGER'), ('slot', 'INTEGER'), ('n_present', 'BIGINT'), ('n_float', 'BIGINT'),
    ('n_int', 'BIGINT'), ('n_bool', 'BIGINT'), ('both_present', 'BIGINT'), ('agent_not_float', 'BIGINT'),
    ('missing_on_both', 'BIGINT'), ('numeric_matches', 'BIGINT'), ('bool_numeric_matches', 'BIGINT'),
    ('min_signature', 'VARCHAR'), ('max_signature', 'VARCHAR'), ('min_signature_b', 'VARCHAR'),
    ('max_signature_b', 'VARCHAR'), ('first_signature', 'VARCHAR'), ('first_signature_any', 'VARCHAR'),
    ('both_timestamps', 'BIGINT'), ('timestamp_matches', 'BIGINT')
]) }}
{%- endif %}
{% endmacro %}

{#- The rows of the groups (n_rows) meeting `condition`, 0 when none does. -#}
{% macro m4_count_rows(condition) -%}
    COALESCE(CAST(SUM(n_rows) FILTER (WHERE {{ condition }}) AS BIGINT), 0)
{%- endmacro %}
