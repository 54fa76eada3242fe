{#-
  One row per (run, key slot): how pandas reads the agent's key column (dtype,
  key kind, timestamp parse in the format of the first value, time zone), over
  every row of the CSV. Key columns are profiled before the comparison because
  the keys are normalised by kind before the outputs are merged.
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set key_width = m4_grading_key_width() %}
WITH key_cells AS (
    SELECT
        run_number,
        row_number
        {%- for slot in range(1, key_width + 1) %},
        column_{{ slot }}
        {%- endfor %}
    FROM {{ ref('stg_agent_outputs__output_rows') }}
),

cells AS (
    {{ m4_cell_features('key_cells', key_width) }}
),

aggregates AS (
    SELECT
        run_number,
        COUNT(*) AS n_rows,
        {{ m4_profile_aggregates(key_width, 'row_number') }}
    FROM cells
    GROUP BY run_number
)

SELECT * FROM (
    {{ m4_profile_rows('aggregates', 'run_number', 'n_rows', key_width) }}
)
