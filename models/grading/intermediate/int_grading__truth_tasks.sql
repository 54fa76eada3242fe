{#-
  One row per task of the batch: the task whose rendering of the reference it
  shares (truth_task). Tasks reading the same reference table (same model, same
  dataset) into the same slots, with the same key columns, get identical truth
  rows (a task and its -raw twin): the truth models render and profile it once,
  for the first of them by name, and the grading models read that rendering for
  all of them.
-#}
{{ config(enabled=var('m4_grading', false)) }}
WITH slot_columns AS (
    SELECT
        settings.task,
        settings.reference_model,
        settings.dataset,
        STRING_AGG(columns.role || ' ' || columns.slot || ' ' || columns.column_name, ', '
                   ORDER BY columns.role, columns.slot) AS graded_columns
    FROM {{ ref('stg_agent_outputs__task_settings') }} AS settings
    LEFT JOIN {{ ref('stg_agent_outputs__task_columns') }} AS columns
        ON settings.task = columns.task
        AND columns.role IN ('key', 'scored')
    GROUP BY settings.task, settings.reference_model, settings.dataset
)

SELECT
    task,
    MIN(task) OVER (PARTITION BY reference_model, dataset, graded_columns) AS truth_task
FROM slot_columns
