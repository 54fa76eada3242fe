{#- M4Bench strict checks test_output_exists and test_output_is_valid_csv (macros/grading/strict_checks.sql).
    Fails with each run that does not pass both. -#}
{% test m4_output_present(model) %}
SELECT run_id, task, file_exists, read_error, agent_rows
FROM {{ model }}
WHERE NOT ({{ m4_check_output_exists() }} AND {{ m4_check_output_is_valid_csv() }})
{% endtest %}
