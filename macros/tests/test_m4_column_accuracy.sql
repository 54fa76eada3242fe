{#- M4Bench strict check test_score_accuracy[column] (macros/grading/strict_checks.sql).
    Fails with each (run, scored column) that does not pass it. -#}
{% test m4_column_accuracy(model) %}
SELECT run_id, task, column_name AS scored_column, match_rate, accuracy_threshold AS threshold
FROM {{ model }}
WHERE NOT {{ m4_check_score_accuracy() }}
{% endtest %}
