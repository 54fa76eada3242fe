{#- M4Bench strict check test_row_coverage: the share of truth keys the output supplies
    reaches the task's threshold (a failed comparison covers nothing). Fails with each run below it. -#}
{% test m4_row_coverage(model, column_name, threshold_column) %}
SELECT run_id, task, {{ column_name }} AS row_coverage, {{ threshold_column }} AS threshold, comparison_error
FROM {{ model }}
WHERE file_exists
    AND read_error IS NULL
    AND (comparison_error IS NOT NULL OR {{ column_name }} < {{ threshold_column }})
{% endtest %}
