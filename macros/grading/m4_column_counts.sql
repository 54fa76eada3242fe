{#- One row per (comparable run, scored slot) of the plan entries `entries` (see
  m4_grading_plan_part): one pass over the merged rows (m4_merged_rows),
  compiled per group of tasks sharing a reference and its columns
  (m4_grading_plan: only their slots, their tolerances as constants), counting
  - over every agent row, what pandas infers the agent column's dtype from;
  - over the merged rows, what the numeric and timestamp comparisons need: cells
    present on both sides, agent cells that are not numbers, cells missing on
    both sides, numeric matches (|truth - agent| <= tolerance; under a boolean
    agent dtype True/False count as 1/0) and, for truth columns that can compare
    as timestamps, the agent's first value (its format), the shapes and parses of
    the agent cells, and timestamp matches (|difference| <= tolerance seconds),
    with day/month/year dates read day first when the first value is (pandas
    reads every value in the format of the first).
  Each cell is first told by one code of five bits (m4_cell_code): its kind
  (m4_cell_kind), whether the agent and the truth have a value, and whether it
  matches numerically. An empty agent cell, or one carrying the truth's text,
  takes a code known without tests; only the others are cast and tested. The
  rows are grouped by run, merge and their cells' codes (few groups: most rows
  of an output share their codes), and every count is read off the groups: a
  few operations a cell rather than one test per count.
  Text comparisons are counted afterwards, only where they decide
  (int_grading__text_matches).
-#}
{% macro m4_column_counts(entries) %}
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
        {%- if column['float_truth'] %}
        truth_render_{{ slot }},
        {%- else %}
        truth_number_{{ slot }},
        {%- endif %}
        -- the code of an empty agent cell, or of one carrying the truth's text (computed once per
        -- truth cell, m4_same_code; a negative tolerance, which no cell meets, is never taken from
        -- it); NULL for the other cells, whose code is computed from their text
        CASE
            WHEN {{ agent }} IS NULL THEN CASE WHEN truth_present_{{ slot }} THEN 8 ELSE 0 END
            {%- if column['tolerance'] >= 0 %}
            WHEN {{ agent }} = truth_render_{{ slot }} THEN truth_same_code_{{ slot }}
            {%- endif %}
        END AS known_code_{{ slot }}
        {%- if column['temporal'] %},
        truth_timestamp_{{ slot }},
        {{ m4_signature(agent) }} AS signature_{{ slot }}
        {%- endif %}
        {%- endfor %}
    FROM ({{ m4_merged_rows(task, width, key_width) }}) AS merged_rows
),

numbered_{{ task_index }} AS (
    SELECT
        *
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        CASE WHEN known_code_{{ slot }} IS NULL THEN {{ m4_double('agent_' ~ slot) }} END AS as_double_{{ slot }}
        {%- if column['float_truth'] %},
        -- a float truth cell's text reads back as its number: read only where the code is computed,
        -- rather than fetching every truth number with the truth row
        CASE WHEN known_code_{{ slot }} IS NULL THEN TRY_CAST(truth_render_{{ slot }} AS DOUBLE) END AS truth_number_{{ slot }}
        {%- endif %}
        {%- endfor %}
    FROM cells_{{ task_index }}
),

kinded_{{ task_index }} AS (
    SELECT
        *
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        CASE WHEN known_code_{{ slot }} IS NULL THEN {{ m4_cell_kind('agent_' ~ slot, 'as_double_' ~ slot) }} END AS kind_{{ slot }}
        {%- endfor %}
    FROM numbered_{{ task_index }}
),

coded_{{ task_index }} AS (
    SELECT
        run_number,
        merged
        {%- for column in task['columns'] %}
        {%- set slot = column['slot'] %},
        COALESCE(
            known_code_{{ slot }},
            {{ m4_cell_code('agent_' ~ slot, 'kind_' ~ slot, 'as_double_' ~ slot, 'truth_present_' ~ slot,
                            'truth_number_' ~ slot, 'CAST(' ~ column['tolerance'] ~ ' AS DOUBLE)') }}
        ) AS code_{{ slot }}
        {%- endfor %}
        {%- for column in task['columns'] if column['temporal'] %}
        {%- set slot = column['slot'] %}
        {%- set agent = 'agent_' ~ slot %}
        {%- if loop.first %},
        truth_row
        {%- endif %},
        {{ agent }},
        merged AND truth_present_{{ slot }} AND {{ agent }} IS NOT NULL AS both_{{ slot }},
        signature_{{ slot }},
        truth_timestamp_{{ slot }},
        {{ m4_timestamp_from(agent, 'signature_' ~ slot) }} AS timestamp_{{ slot }},
        -- a day/month/year date, for runs whose first value is read day first (m4_day_first)
        {{ m4_day_first_timestamp(agent, 'signature_' ~ slot) }} AS timestamp_dm_{{ slot }}
        {%- endfor %}
    FROM kinded_{{ task_index }}
),

grouped_{{ task_index }} AS (
    SELECT
        run_number,
        merged,
        {%- for column in task['columns'] %}
        code_{{ column['slot'] }},
        {%- endfor %}
        COUNT(*) AS n_rows
        {%- for column in task['columns'] if column['temporal'] %}
        {%- set slot = column['slot'] %}
        {%- set agent = 'agent_' ~ slot %}
        {%- set tolerance = 'CAST(' ~ column['tolerance'] ~ ' AS DOUBLE)' %},
        MIN(truth_row) FILTER (WHERE merged AND {{ agent }} IS NOT NULL) AS first_row_{{ slot }},
        ARG_MIN({{ agent }}, truth_row) FILTER (WHERE merged AND {{ agent }} IS NOT NULL) AS first_value_{{ slot }},
        {{ m4_shape_bounds('signature_' ~ slot, slot, 'both_' ~ slot) }},
        count_if(both_{{ slot }} AND timestamp_{{ slot }} IS NOT NULL) AS both_timestamps_{{ slot }},
        count_if(
            merged AND abs(CAST(epoch_us(truth_timestamp_{{ slot }}) AS HUGEINT) - epoch_us(timestamp_{{ slot }}))
                <= {{ tolerance }} * 1000000
        ) AS timestamp_matches_{{ slot }},
        count_if(both_{{ slot }} AND timestamp_dm_{{ slot }} IS NOT NULL) AS both_timestamps_dm_{{ slot }},
        count_if(
            merged AND abs(CAST(epoch_us(truth_timestamp_{{ slot }}) AS HUGEINT) - epoch_us(timestamp_dm_{{ slot }}))
                <= {{ tolerance }} * 1000000
        ) AS timestamp_matches_dm_{{ slot }}
        {%- endfor %}
    FROM coded_{{ task_index }}
    GROUP BY ALL
),

{%- endfor %}

-- every scored cell's code, one row per (group, slot)
codes AS (
    {%- for task in plan %}
    SELECT
        run_number,
        merged,
        n_rows,
        UNNEST([{{ task['columns'] | map(attribute='slot') | join(', ') }}]) AS slot,
        UNNEST([{% for column in task['columns'] %}code_{{ column['slot'] }}{% if not loop.last %}, {% endif %}{% endfor %}]) AS code
    FROM grouped_{{ loop.index }}
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}
),

code_counts AS (
    SELECT
        run_number,
        slot,
        {{ m4_sum_rows('(code & 4) = 4') }} AS n_present,
        {{ m4_sum_rows('(code & 3) IN (1, 2)') }} AS n_float,
        {{ m4_sum_rows('(code & 3) = 2') }} AS n_int,
        {{ m4_sum_rows('(code & 3) = 3') }} AS n_bool,
        {{ m4_sum_rows('merged AND (code & 12) = 12') }} AS both_present,
        {{ m4_sum_rows('merged AND (code & 12) = 12 AND (code & 3) NOT IN (1, 2)') }} AS agent_not_float,
        {{ m4_sum_rows('merged AND (code & 12) = 0') }} AS missing_on_both,
        {{ m4_sum_rows('merged AND (code & 3) IN (1, 2) AND (code & 16) = 16') }} AS numeric_matches,
        {{ m4_sum_rows('merged AND (code & 3) = 3 AND (code & 16) = 16') }} AS bool_numeric_matches
    FROM codes
    GROUP BY run_number, slot
),

-- the timestamp counts of the columns that can compare as timestamps, one row per (group, slot)
timestamp_groups AS (
    {%- for task in plan %}
    {%- set slots = task['columns'] | selectattr('temporal') | map(attribute='slot') | list %}
    {%- if slots %}
    {{ m4_unpivot_slots('grouped_' ~ loop.index, 'run_number', slots,
                        ['first_row', 'first_value', 'min_signature', 'max_signature', 'min_signature_b',
                         'max_signature_b', 'both_timestamps', 'timestamp_matches', 'both_timestamps_dm',
                         'timestamp_matches_dm']) }}
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
        code_counts.*,
        timestamp_counts.first_value,
        timestamp_counts.min_signature,
        timestamp_counts.max_signature,
        timestamp_counts.min_signature_b,
        timestamp_counts.max_signature_b,
        COALESCE(timestamp_counts.both_timestamps, 0) AS both_timestamps,
        COALESCE(timestamp_counts.timestamp_matches, 0) AS timestamp_matches,
        COALESCE(timestamp_counts.both_timestamps_dm, 0) AS both_timestamps_dm,
        COALESCE(timestamp_counts.timestamp_matches_dm, 0) AS timestamp_matches_dm
    FROM code_counts
    LEFT JOIN timestamp_counts
        ON code_counts.run_number = timestamp_counts.run_number
        AND code_counts.slot = timestamp_counts.slot
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
    ('first_signature', 'VARCHAR'), ('first_signature_any', 'VARCHAR'), ('min_signature', 'VARCHAR'),
    ('max_signature', 'VARCHAR'), ('min_signature_b', 'VARCHAR'), ('max_signature_b', 'VARCHAR'),
    ('both_timestamps', 'BIGINT'), ('timestamp_matches', 'BIGINT')
]) }}
{%- endif %}
{% endmacro %}

{#- A part of m4_grading_plan, for the two models that count its columns side by
    side: 'large', the entries with the most agent rows (in that order, until they
    hold at least half of the batch's rows), and 'small', the others. The large
    part's SQL is short and its query long; the small part's SQL is long (most
    entries) and its query short, so DuckDB plans the one while it runs the other.
    Empty while dbt parses. -#}
{% macro m4_grading_plan_part(part) %}
    {%- set plan = m4_grading_plan() -%}
    {%- if not plan -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set counted = run_query(
        "SELECT runs.task, SUM(run_keys.agent_rows) AS agent_rows "
        ~ "FROM " ~ ref('int_grading__run_keys') ~ " AS run_keys "
        ~ "INNER JOIN " ~ ref('int_grading__runs') ~ " AS runs ON run_keys.run_number = runs.run_number "
        ~ "GROUP BY runs.task"
    ) -%}
    {%- set rows_by_task = {} -%}
    {%- for row in counted.rows %}{% do rows_by_task.update({row['task']: row['agent_rows'] | int}) %}{% endfor -%}
    {%- set weighted = [] -%}
    {%- for entry in plan -%}
        {%- set rows = [] -%}
        {%- for task in entry['tasks'] %}{% do rows.append(rows_by_task.get(task, 0)) %}{% endfor -%}
        {%- do weighted.append({'rows': rows | sum, 'position': loop.index0, 'entry': entry}) -%}
    {%- endfor -%}
    {%- set total = weighted | sum(attribute='rows') -%}
    {%- set large = [] -%}
    {%- set ns = namespace(held=0) -%}
    {%- for item in weighted | sort(attribute='rows', reverse=true) -%}
        {%- if ns.held * 2 < total -%}
            {%- do large.append(item['position']) -%}
            {%- set ns.held = ns.held + item['rows'] -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set chosen = [] -%}
    {%- for item in weighted if (item['position'] in large) == (part == 'large') -%}
        {%- do chosen.append(item['entry']) -%}
    {%- endfor -%}
    {{ return(chosen) }}
{% endmacro %}

{#- The code of a scored cell, five bits (m4_column_counts): its kind (bits 1-2, m4_cell_kind
    of the agent's text `value` with its double `number`), 4 when the agent has a value, 8
    when the truth has one, 16 when it matches numerically: a number within `tolerance` of
    the truth's number, or a boolean whose 1 or 0 is. -#}
{% macro m4_cell_code(value, kind, number, truth_present, truth_number, tolerance) -%}
    {{ kind }}
                + CASE WHEN {{ value }} IS NOT NULL THEN 4 ELSE 0 END
                + CASE WHEN {{ truth_present }} THEN 8 ELSE 0 END
                + CASE
                    WHEN {{ kind }} IN (1, 2) AND abs({{ truth_number }} - {{ number }}) <= {{ tolerance }} THEN 16
                    WHEN {{ kind }} = 3
                        AND abs({{ truth_number }} - CASE WHEN lower({{ value }}) = 'true' THEN 1.0 ELSE 0.0 END) <= {{ tolerance }}
                        THEN 16
                    ELSE 0
                END
{%- endmacro %}

{#- The code m4_cell_code gives an agent cell carrying exactly the truth's text `render`
    (an agent cell equal to it: present on both sides, of the text's kind `kind`, its number
    the truth's `number`), under any tolerance of at least 0; NULL for a missing text, and
    for a boolean text whose number is neither NULL nor its 1 or 0 (the match would then
    depend on the tolerance). -#}
{% macro m4_same_code(render, kind, number) -%}
    CASE
        WHEN {{ render }} IS NULL THEN NULL
        WHEN {{ kind }} IN (1, 2) THEN {{ kind }} + 12 + CASE WHEN isfinite({{ number }}) THEN 16 ELSE 0 END
        WHEN {{ kind }} = 3 THEN CASE
            WHEN {{ number }} IS NULL THEN 15
            WHEN {{ number }} = CASE WHEN lower({{ render }}) = 'true' THEN 1.0 ELSE 0.0 END THEN 31
        END
        ELSE {{ kind }} + 12
    END
{%- endmacro %}

{#- The rows of the groups (n_rows) meeting `condition`, 0 when none does. -#}
{% macro m4_sum_rows(condition) -%}
    COALESCE(CAST(SUM(n_rows) FILTER (WHERE {{ condition }}) AS BIGINT), 0)
{%- endmacro %}
