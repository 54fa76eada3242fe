-- One row per (reference_model, column): pandas dtype, key kind, timestamp parse, looks-temporal.
{{ config(enabled=var('m4_grading', false)) }}
{{ m4_column_profiles(ref('int_grading__truth_values'), 'reference_model', 'truth_row', with_temporal=true) }}
