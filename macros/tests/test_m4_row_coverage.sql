{#- M4Bench strict check test_row_coverage (macros/grading/strict_checks.sql), on readable runs.
    Fails with each run below its threshold or whose comparison failed. -#}
{% test m4_row_coverage(model) %}
SELECT run_id, task, row_coverage, row_coverage_threshold AS threshold, comparison_error
FROM {{ model }}
WHERE {{ m4_check_readable() }} AND NOT {{ m4_check_row_coverage() }}
{% endtest %}
