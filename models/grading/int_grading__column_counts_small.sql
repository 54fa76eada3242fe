{#-
  The column counts (macro m4_column_counts) of the plan entries in the small part
  of the batch (m4_grading_plan_part): built side by side with
  int_grading__column_counts_large, and read through the view int_grading__column_counts.
-#}
{{ config(enabled=var('m4_grading', false)) }}
-- depends_on: {{ ref('int_grading__truth_tasks') }}, {{ ref('int_grading__truth_profiles') }}, {{ ref('int_grading__truth_values') }}, {{ ref('int_grading__runs') }}, {{ ref('int_grading__run_keys') }}, {{ ref('int_grading__repeated_keys') }}
{{ m4_column_counts(m4_grading_plan_part('small')) }}
