-- Reference: Charlson Comorbidity Index of each hospital admission (task family charlson).
-- One row per hadm_id in admissions.
-- Charlson ME et al. A new method of classifying prognostic comorbidity in longitudinal studies.
-- J Chronic Dis 1987;40:373-383. ICD mapping: Quan H et al. Med Care 2005;43:1130-1139.
-- The benchmark's definition is exactly mimic-code's charlson concept (as vendored by m4-infra),
-- so the reference reads that concept, orders the columns as the task requires and fixes their
-- types. Conventions are listed in ref_charlson.yml.

WITH charlson AS (
    SELECT *
    FROM {{ ref('int_mimiciv_comorbidity__charlson') }}
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(age_score AS INTEGER) AS age_score,
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
    CAST(charlson_comorbidity_index AS INTEGER) AS charlson_comorbidity_index
FROM charlson
