-- One row per (run_id, column) of the agent CSVs: pandas dtype, key kind, timestamp parse.
{{ config(enabled=var('m4_grading', false)) }}
{{ m4_column_profiles(ref('int_grading__agent_values'), 'run_id', 'row_number') }}
