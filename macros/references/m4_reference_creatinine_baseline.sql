{#-
  The baseline-creatinine reference's SQL (model ref_creatinine_baseline), under its conventions as
  declared in models/marts/reference/ref_creatinine_baseline.yml, or with `flip` changing one of them
  (a variant, docs/explain.md). Siew ED et al. Clin J Am Soc Nephrol 2012;7:712-719.
-#}
{% macro m4_reference_creatinine_baseline(flip={}) %}
{%- set conventions = m4_conventions('ref_creatinine_baseline', ['baseline_rule', 'unmeasured_ckd'], flip) -%}

WITH baseline AS (
    SELECT hadm_id, gender, age, scr_min, ckd, mdrd_est, scr_baseline
    FROM {{ ref('int_mimiciv_measurement__creatinine_baseline') }}
)

SELECT
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(gender AS {{ m4_type('string') }}) AS gender,
    CAST(age AS {{ m4_type('double') }}) AS age,
    CAST(scr_min AS {{ m4_type('double') }}) AS scr_min,
    CAST(ckd AS INTEGER) AS ckd,
    CAST(mdrd_est AS {{ m4_type('double') }}) AS mdrd_est,
    -- the concept's rule (documented: hierarchical), or as a variant reads it
    CAST(
        {{ creatinine_baseline_rule('scr_min', 'ckd', 'mdrd_est', conventions.baseline_rule.rule,
                                    conventions.unmeasured_ckd.baseline) }}
        AS {{ m4_type('double') }}
    ) AS scr_baseline
FROM baseline
{% endmacro %}
