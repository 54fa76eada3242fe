{#-
  One row per (task, truth_row): the row's normalised key (typed parts, see
  m4_key_number / m4_key_timestamp / m4_key_text) and, per slot, what the
  comparison reads of the truth cell: its number (pd.to_numeric under the
  column's dtype), its text (astype("string") under that dtype; NULL exactly when
  the cell is missing) and, for columns that may compare as timestamps, its
  timestamp; and the kind of that text (kind_<slot>, m4_cell_kind): an agent cell
  carrying exactly that text reads as this cell does, so the counting pass skips
  its casts (most cells of a good output).
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set width = m4_grading_width() %}
{%- set key_width = m4_grading_key_width() %}
WITH key_counts AS (
    SELECT task, COUNT(*) AS n_keys
    FROM {{ ref('stg_agent_outputs__task_columns') }}
    WHERE role = 'key'
    GROUP BY task
),

columns_by_task AS (
    -- key_kind_<slot> is NULL for slots that are not key columns of the task
    SELECT
        profiles.task
        {%- for slot in range(1, width + 1) %},
        ANY_VALUE(profiles.dtype) FILTER (WHERE profiles.slot = {{ slot }}) AS dtype_{{ slot }},
        ANY_VALUE(profiles.key_kind) FILTER (WHERE profiles.slot = {{ slot }} AND profiles.slot <= key_counts.n_keys) AS key_kind_{{ slot }},
        ANY_VALUE(profiles.has_time_zone) FILTER (WHERE profiles.slot = {{ slot }}) AS key_time_zone_{{ slot }},
        COALESCE(ANY_VALUE(profiles.looks_temporal AND profiles.all_timestamps) FILTER (WHERE profiles.slot = {{ slot }}), FALSE) AS temporal_{{ slot }}
        {%- endfor %}
    FROM {{ ref('int_grading__truth_profiles') }} AS profiles
    INNER JOIN key_counts
        ON profiles.task = key_counts.task
    GROUP BY profiles.task
),

rendered AS (
    SELECT
        truth.task,
        truth.truth_row,
        {{ m4_key_parts(key_width, 'truth.', 'columns_by_task.', 'dtype_') }}
        {%- for slot in range(1, width + 1) %},
        {{ m4_numeric('truth.column_' ~ slot, 'columns_by_task.dtype_' ~ slot) }} AS number_{{ slot }},
        {{ m4_render('truth.column_' ~ slot, 'columns_by_task.dtype_' ~ slot) }} AS render_{{ slot }},
        CASE WHEN columns_by_task.temporal_{{ slot }} THEN {{ m4_timestamp('truth.column_' ~ slot) }} END AS timestamp_{{ slot }}
        {%- endfor %}
    FROM {{ ref('int_grading__truth_rows') }} AS truth
    INNER JOIN columns_by_task
        ON truth.task = columns_by_task.task
    WHERE truth.truth_row IS NOT NULL
)

SELECT
    *
    {%- for slot in range(1, width + 1) %}
    {%- set render = 'render_' ~ slot %},
    {{ m4_cell_kind(render, m4_double(render)) }} AS kind_{{ slot }}
    {%- endfor %}
FROM rendered
