{#- M4Bench strict check test_has_required_columns (macros/grading/strict_checks.sql), on readable runs.
    Fails with each run lacking a required column. -#}
{% test m4_required_columns(model) %}
SELECT run_id, task, missing_required_columns AS missing_columns
FROM {{ model }}
WHERE {{ m4_check_readable() }} AND NOT {{ m4_check_has_required_columns() }}
{% endtest %}
