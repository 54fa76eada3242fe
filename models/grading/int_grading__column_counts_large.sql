{#- m4_column_counts of the groups of tasks with the most agent rows (m4_grading_plan_part) -#}
{{ config(enabled=var('m4_grading', false)) }}
-- depends_on: {{ ref('int_grading__truth_tasks') }}, {{ ref('int_grading__truth_profiles') }}, {{ ref('int_grading__truth_values') }}, {{ ref('int_grading__runs') }}, {{ ref('int_grading__run_keys') }}, {{ ref('int_grading__repeated_keys') }}
{{ m4_column_counts(m4_grading_plan_part('large')) }}
