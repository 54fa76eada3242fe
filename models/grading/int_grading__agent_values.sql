-- One row per agent cell (run_id, row_number, column) with the features of its text.
{{ config(enabled=var('m4_grading', false), materialized='view') }}
{{ m4_cell_features(source('agent_outputs', 'output_cells'), 'run_id', 'row_number') }}
