{#-
  The Charlson reference's SQL (model ref_charlson), under its conventions as declared in
  models/marts/reference/ref_charlson.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Charlson ME et al. J Chronic Dis 1987;40:373-383; Quan H et al. Med Care
  2005;43:1130-1139.
  The flags and age points are the concept's (int_mimiciv_comorbidity__charlson); the index is
  summed here from them, with the concept's weights, as the conventions read it (documented: the
  concept's own sum).
-#}
{% macro m4_reference_charlson(flip={}) %}
{%- set conventions = m4_conventions('ref_charlson', ['age_points', 'hierarchy', 'missing_age'], flip) -%}
{%- set age_score = m4_missing_as(conventions.missing_age, 'age_score') -%}
{%- set pairs = [('mild_liver_disease', 1, 'severe_liver_disease', 3),
                 ('diabetes_without_cc', 1, 'diabetes_with_cc', 2),
                 ('malignant_cancer', 2, 'metastatic_solid_tumor', 6)] -%}

WITH charlson AS (
    SELECT *
    FROM {{ ref('int_mimiciv_comorbidity__charlson') }}
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    -- an admission without an age: as convention missing_age reads it (documented: NULL)
    CAST({{ age_score }} AS INTEGER) AS age_score,
    CAST(myocardial_infarct AS INTEGER) AS myocardial_infarct,
    CAST(congestive_heart_failure AS INTEGER) AS congestive_heart_failure,
    CAST(peripheral_vascular_disease AS INTEGER) AS peripheral_vascular_disease,
    CAST(cerebrovascular_disease AS INTEGER) AS cerebrovascular_disease,
    CAST(dementia AS INTEGER) AS dementia,
    CAST(chronic_pulmonary_disease AS INTEGER) AS chronic_pulmonary_disease,
    CAST(rheumatic_disease AS INTEGER) AS rheumatic_disease,
    CAST(peptic_ulcer_disease AS INTEGER) AS peptic_ulcer_disease,
    CAST(mild_liver_disease AS INTEGER) AS mild_liver_disease,
    CAST(diabetes_without_cc AS INTEGER) AS diabetes_without_cc,
    CAST(diabetes_with_cc AS INTEGER) AS diabetes_with_cc,
    CAST(paraplegia AS INTEGER) AS paraplegia,
    CAST(renal_disease AS INTEGER) AS renal_disease,
    CAST(malignant_cancer AS INTEGER) AS malignant_cancer,
    CAST(severe_liver_disease AS INTEGER) AS severe_liver_disease,
    CAST(metastatic_solid_tumor AS INTEGER) AS metastatic_solid_tumor,
    CAST(aids AS INTEGER) AS aids,
    -- The concept's weights: 1, except paraplegia and renal disease 2, AIDS 6; age points as
    -- convention age_points reads them (documented: included); within each hierarchy (liver
    -- disease, diabetes, cancer) as convention hierarchy reads it (documented: only the more
    -- severe form counts).
    CAST(
        {% if conventions.age_points.included %}{{ age_score }}{% else %}0{% endif %}
        + myocardial_infarct
        + congestive_heart_failure
        + peripheral_vascular_disease
        + cerebrovascular_disease
        + dementia
        + chronic_pulmonary_disease
        + rheumatic_disease
        + peptic_ulcer_disease
        {%- for mild, mild_weight, severe, severe_weight in pairs %}
        {%- if conventions.hierarchy.severe_only %}
        + GREATEST({{ mild_weight }} * {{ mild }}, {{ severe_weight }} * {{ severe }})
        {%- else %}
        + {{ mild_weight }} * {{ mild }} + {{ severe_weight }} * {{ severe }}
        {%- endif %}
        {%- endfor %}
        + 2 * paraplegia
        + 2 * renal_disease
        + 6 * aids
        AS INTEGER
    ) AS charlson_comorbidity_index
FROM charlson
{% endmacro %}
