{#- Every non-NULL value of the column lies within [min_value, max_value] (either bound
    may be omitted; inclusive=false makes both bounds strict). NULLs pass: combine with
    not_null where a value is required. Fails with each out-of-range row. Same name and
    arguments as dbt_utils' test. -#}
{% test accepted_range(model, column_name, min_value=none, max_value=none, inclusive=true) %}

WITH out_of_range AS (

    SELECT *
    FROM {{ model }}
    WHERE {{ column_name }} IS NOT NULL
    AND NOT (
        1 = 1
        {%- if min_value is not none %}
        AND {{ column_name }} {{ '>=' if inclusive else '>' }} {{ min_value }}
        {%- endif %}
        {%- if max_value is not none %}
        AND {{ column_name }} {{ '<=' if inclusive else '<' }} {{ max_value }}
        {%- endif %}
    )

)

SELECT * FROM out_of_range

{% endtest %}
