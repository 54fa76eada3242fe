{#- A score's total equals the sum of its components, a missing (NULL) component counting
    as 0, on every row where the total is present. Fails with the rows where it does not
    (a row whose components are all NULL fails unless its total is 0). -#}
{% test reference_total_equals_sum(model, column_name, components) %}
{%- set component_sum -%}
    ({% for component in components %}COALESCE({{ component }}, 0){{ ' + ' if not loop.last }}{% endfor %})
{%- endset %}
SELECT {{ column_name }} AS total, {{ component_sum }} AS component_sum
FROM {{ model }}
WHERE {{ column_name }} IS NOT NULL
    AND {{ column_name }} <> {{ component_sum }}
{% endtest %}
