{#- M4Bench strict check test_score_accuracy[column]: each scored column's match rate
    reaches the task's accuracy threshold. Fails with each (run, column) below it. -#}
{% test m4_column_accuracy(model, column_name, threshold_column) %}
SELECT run_id, task, column_name AS scored_column, {{ column_name }} AS match_rate, {{ threshold_column }} AS threshold
FROM {{ model }}
WHERE comparison_failed
    OR {{ column_name }} < {{ threshold_column }}
{% endtest %}
