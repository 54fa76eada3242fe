-- One row per distinct (run_id, column, value) of the agent outputs, with its features.
{{ config(enabled=var('m4_grading', false)) }}
{{ m4_distinct_values(source('agent_outputs', 'output_cells'), 'run_id', 'row_number') }}
