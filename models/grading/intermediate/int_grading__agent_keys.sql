{#-
  One row per distinct normalised key of every comparable run: its first row
  (the one M4Bench keeps), how many rows carry it, and the truth row it matches
  (NULL for a key the reference does not have). Keys compare as pandas merges
  them: numbers as numbers, timestamps as timestamps, text as text; compiled per
  task, grouping on the parts of its key kinds only (m4_keyed_rows).

  A view, for lookups of one run (the Great Expectations coverage batch reads
  only that run's rows). The build does not group every run's keys: it counts
  them per run (int_grading__run_keys) and groups only the runs that repeat a
  truth key (int_grading__repeated_keys). Nothing in the build reads it.
-#}
{{ config(enabled=var('m4_grading', false), materialized='view') }}
{%- set key_width = m4_grading_key_width() %}
{%- set inputs = m4_merge_inputs(repeated_keys=false) %}
{%- for task in m4_grading_plan() %}
{%- set key_columns = m4_typed_key_columns(task['keys']) %}
SELECT
    run_number,
    MIN(row_number) AS kept_row,
    COUNT(*) AS n_rows,
    -- (the same for every row of a key)
    ANY_VALUE(truth_row) AS truth_row
FROM ({{ m4_keyed_rows(task, key_width, inputs) }}) AS keyed_rows
GROUP BY run_number, {{ key_columns | join(', ') }}
UNION ALL
{%- endfor %}
{{ m4_no_rows([('run_number', 'INTEGER'), ('kept_row', 'BIGINT'), ('n_rows', 'BIGINT'), ('truth_row', 'BIGINT')]) }}
