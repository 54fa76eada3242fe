{#- Every row of the cohort model (e.g. stg_mimiciv_icu__icustays) has exactly one row in
    the reference, matched on `key`. Fails with the cohort keys that are missing or repeated. -#}
{% test reference_covers_cohort(model, key, cohort) %}
WITH reference_rows AS (
    SELECT {{ key }} AS cohort_key, COUNT(*) AS n_rows
    FROM {{ model }}
    GROUP BY {{ key }}
)
SELECT cohort.{{ key }} AS cohort_key, COALESCE(reference_rows.n_rows, 0) AS n_rows
FROM {{ cohort }} AS cohort
LEFT JOIN reference_rows
    ON cohort.{{ key }} = reference_rows.cohort_key
WHERE COALESCE(reference_rows.n_rows, 0) <> 1
{% endtest %}
