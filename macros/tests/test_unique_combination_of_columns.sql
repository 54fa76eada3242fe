{#- The listed columns together identify a row: no combination of their values
    occurs twice (NULLs compare equal, as in GROUP BY). Fails with each repeated
    combination and how often it occurs. Named as dbt_utils' test so the
    dbt-project-evaluator rule recognises it as a primary-key test. -#}
{% test unique_combination_of_columns(model, combination_of_columns) %}

WITH key_counts AS (

    SELECT
        {{ combination_of_columns | join(',\n        ') }},
        COUNT(*) AS n_rows
    FROM {{ model }}
    GROUP BY {{ combination_of_columns | join(', ') }}

)

SELECT * FROM key_counts
WHERE n_rows > 1

{% endtest %}
