-- One row per distinct (reference_model, column, value) of the references, with its features.
{{ config(enabled=var('m4_grading', false)) }}
{{ m4_distinct_values(ref('int_grading__truth_cells'), 'reference_model', 'truth_row') }}
