{#-
  One row per (comparable run, scored slot that can compare as timestamps): the
  agent's first value read as pandas reads it, the shapes of the agent cells and
  the timestamp matches (macro m4_timestamp_counts). Built beside
  int_grading__cell_counts: DuckDB plans one while it runs the other.
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set inputs = m4_merge_inputs() %}
{{ m4_timestamp_counts(m4_grading_plan(), inputs) }}
