{#-
  One row per (comparable run, scored slot): the counts the agent dtype, the
  comparison mode and the numeric and timestamp matches follow from (macro
  m4_column_counts). Counted in two tables built side by side, the plan entries
  with the most agent rows and the others (m4_grading_plan_part).
-#}
{{ config(enabled=var('m4_grading', false), materialized='view') }}
SELECT * FROM {{ ref('int_grading__column_counts_large') }}
-- (by name: a part without entries has the same columns in another order)
UNION ALL BY NAME
SELECT * FROM {{ ref('int_grading__column_counts_small') }}
