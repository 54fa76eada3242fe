{#- M4Bench strict checks test_output_exists and test_output_is_valid_csv: the output
    file exists, reads as CSV and has at least one row. Fails with each run that does not. -#}
{% test m4_output_present(model) %}
SELECT run_id, task, file_exists, read_error, agent_rows
FROM {{ model }}
WHERE NOT file_exists
    OR read_error IS NOT NULL
    OR agent_rows = 0
{% endtest %}
