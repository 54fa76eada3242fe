{#-
  One row per comparable run: its rows, the rows whose key the truth has, its
  distinct normalised keys, and how many of them are in the truth. Counted
  without grouping the rows by key: a key the truth has is counted by its truth
  row (distinct truth rows are distinct keys, set bits of a bitmap), and only
  the keys the truth lacks (few rows, in a good output none) are told apart by
  their typed parts.
  Compiled per group of tasks sharing a reference (m4_grading_plan, m4_keyed_rows).
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set key_width = m4_grading_key_width() %}
{%- set inputs = m4_merge_inputs(repeated_keys=false) %}
WITH counted AS (
    {%- for task in m4_grading_plan() %}
    {%- set key_columns = m4_typed_key_columns(task['keys']) %}
    SELECT
        run_number,
        COUNT(*) AS agent_rows,
        COUNT(truth_row) AS rows_in_truth,
        -- distinct truth rows as the set bits of a bitmap over 1 .. truth_rows (no hash table)
        COALESCE(bit_count(bitstring_agg(truth_row, 1, {{ [task['truth_rows'], 1] | max }})), 0) AS agent_keys_in_truth,
        COUNT(DISTINCT CASE
            WHEN truth_row IS NULL
                THEN ROW({{ key_columns | join(', ') }})
        END) AS keys_not_in_truth
    FROM ({{ m4_keyed_rows(task, key_width, inputs) }}) AS keyed_rows
    GROUP BY run_number
    UNION ALL
    {%- endfor %}
    {{ m4_no_rows([('run_number', 'INTEGER'), ('agent_rows', 'BIGINT'), ('rows_in_truth', 'BIGINT'),
                   ('agent_keys_in_truth', 'BIGINT'), ('keys_not_in_truth', 'BIGINT')]) }}
)

SELECT
    run_number,
    agent_rows,
    agent_keys_in_truth + keys_not_in_truth AS agent_unique_keys,
    agent_keys_in_truth,
    -- a run that repeats a truth key (int_grading__repeated_keys lists them)
    rows_in_truth > agent_keys_in_truth AS repeats_truth_keys
FROM counted
