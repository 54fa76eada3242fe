{#-
  The truth keys a comparable run supplies on more than one row, with the first
  of those rows (the one M4Bench keeps); few rows. Only the runs that repeat a
  truth key (int_grading__run_keys, listed as constants so only their rows are
  read) are grouped by key.
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set key_width = m4_grading_key_width() %}
{%- set inputs = m4_merge_inputs(repeated_keys=false) %}
{%- set repeating = m4_grading_runs_repeating_keys() %}
{%- for task in m4_grading_plan() %}
{%- set runs = m4_plan_runs(repeating, task) %}
{%- if runs %}
SELECT
    run_number,
    truth_row,
    MIN(row_number) AS kept_row,
    COUNT(*) AS n_rows
FROM ({{ m4_keyed_rows(task, key_width, inputs, runs=runs) }}) AS keyed_rows
WHERE truth_row IS NOT NULL
GROUP BY run_number, truth_row
HAVING COUNT(*) > 1
UNION ALL
{%- endif %}
{%- endfor %}
{{ m4_no_rows([('run_number', 'INTEGER'), ('truth_row', 'BIGINT'), ('kept_row', 'BIGINT'), ('n_rows', 'BIGINT')]) }}
