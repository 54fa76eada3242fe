{#-
  The SAPS II reference's SQL (model ref_sapsii_24h), under its conventions as declared in
  models/marts/reference/ref_sapsii_24h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Le Gall JR, Lemeshow S, Saulnier F. JAMA 1993;270:2957-2963.
-#}
{% macro m4_reference_sapsii_24h(flip={}) %}
{%- set conventions = m4_conventions('ref_sapsii_24h', ['window', 'pao2fio2_gases', 'missing_component'], flip) -%}

WITH first_day_values AS (
    -- Macro sapsii_first_day_values, shared with the sapsii concept: stays with an admission
    -- row (inner join, as the original); the window (documented: (intime, intime + 24 h], start
    -- exclusive, end inclusive; convention window); vital signs and labs of the patient (any
    -- stay or admission) in it; PaO2/FiO2 only while invasively ventilated or on CPAP/BiPAP
    -- (charted O2 delivery device 226732, from 1 h before the first to 4 h after the last such
    -- row; convention pao2fio2_gases); the admission's first service decides whether it is
    -- surgical (two services at the earliest transfertime: a surgical one wins, then the
    -- service name; see ref_sapsii_24h.yml); chronic diseases from seed
    -- sapsii_comorbidity_icd_ranges.
    {{ sapsii_first_day_values(conventions.window.start_hours, conventions.pao2fio2_gases.gases) }}
),

component_scores AS (
    -- Each component is NULL when its data are missing (or fall in no band).
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        {{ sapsii_component_scores() }}
    FROM first_day_values
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    -- A component without data scores 0 in the total; in its own column as convention
    -- missing_component reads it (documented: 0).
    CAST(
        COALESCE(age_score, 0)
        + COALESCE(hr_score, 0)
        + COALESCE(sysbp_score, 0)
        + COALESCE(temp_score, 0)
        + COALESCE(pao2fio2_score, 0)
        + COALESCE(uo_score, 0)
        + COALESCE(bun_score, 0)
        + COALESCE(wbc_score, 0)
        + COALESCE(potassium_score, 0)
        + COALESCE(sodium_score, 0)
        + COALESCE(bicarbonate_score, 0)
        + COALESCE(bilirubin_score, 0)
        + COALESCE(gcs_score, 0)
        + COALESCE(comorbidity_score, 0)
        + COALESCE(admissiontype_score, 0)
        AS INTEGER
    ) AS sapsii,
    CAST({{ m4_missing_as(conventions.missing_component, 'age_score') }} AS INTEGER) AS age_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'hr_score') }} AS INTEGER) AS hr_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'sysbp_score') }} AS INTEGER) AS sysbp_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'temp_score') }} AS INTEGER) AS temp_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'pao2fio2_score') }} AS INTEGER) AS pao2fio2_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'uo_score') }} AS INTEGER) AS uo_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'bun_score') }} AS INTEGER) AS bun_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'wbc_score') }} AS INTEGER) AS wbc_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'potassium_score') }} AS INTEGER) AS potassium_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'sodium_score') }} AS INTEGER) AS sodium_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'bicarbonate_score') }} AS INTEGER) AS bicarbonate_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'bilirubin_score') }} AS INTEGER) AS bilirubin_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'gcs_score') }} AS INTEGER) AS gcs_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'comorbidity_score') }} AS INTEGER) AS comorbidity_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'admissiontype_score') }} AS INTEGER) AS admissiontype_score
FROM component_scores
{% endmacro %}
