{#-
  One row per (comparable run, scored slot): the counts the agent dtype, the
  comparison mode and the numeric matches follow from (macro m4_column_counts),
  for every group of tasks sharing a reference (m4_grading_plan).
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set inputs = m4_merge_inputs() %}
{{ m4_column_counts(m4_grading_plan(), inputs) }}
