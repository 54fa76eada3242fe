-- One row per reference cell (reference_model, truth_row, column) with the features of its text.
{{ config(enabled=var('m4_grading', false)) }}
{{ m4_cell_features(ref('int_grading__truth_cells'), 'reference_model', 'truth_row') }}
