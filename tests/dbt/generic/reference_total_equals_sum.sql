{#- A score's total equals the sum of its (missing-as-0) components on every row where the
    total is present. Fails with the rows where it does not. -#}
{% test reference_total_equals_sum(model, column_name, components) %}
SELECT {{ column_name }} AS total, {{ components | join(' + ') }} AS component_sum
FROM {{ model }}
WHERE {{ column_name }} IS NOT NULL
    AND {{ column_name }} <> ({{ components | join(' + ') }})
{% endtest %}
