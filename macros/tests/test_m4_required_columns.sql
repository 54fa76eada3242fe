{#- M4Bench strict check test_has_required_columns: a readable output has every required
    column (names compared exactly, case and spaces included). Fails with each run lacking some. -#}
{% test m4_required_columns(model, column_name) %}
SELECT run_id, task, {{ column_name }} AS missing_columns
FROM {{ model }}
WHERE file_exists
    AND read_error IS NULL
    AND len({{ column_name }}) > 0
{% endtest %}
