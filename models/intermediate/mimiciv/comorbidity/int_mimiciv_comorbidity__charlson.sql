-- Charlson Comorbidity Index per hospital admission, from the admission's ICD-9 and
-- ICD-10 diagnoses and the patient's age.
-- mimic-code: mimic-iv/concepts/comorbidity/charlson.sql (m4-infra snapshot).
-- Charlson ME, et al. A new method of classifying prognostic comorbidity in longitudinal
-- studies: development and validation. J Chronic Dis 1987;40:373-383.
-- Quan H, et al. Coding algorithms for defining comorbidities in ICD-9-CM and ICD-10
-- administrative data. Med Care 2005;43:1130-1139.
{{ config(alias='charlson') }}

{%- set comorbidities = [
    'myocardial_infarct',
    'congestive_heart_failure',
    'peripheral_vascular_disease',
    'cerebrovascular_disease',
    'dementia',
    'chronic_pulmonary_disease',
    'rheumatic_disease',
    'peptic_ulcer_disease',
    'mild_liver_disease',
    'diabetes_without_cc',
    'diabetes_with_cc',
    'paraplegia',
    'renal_disease',
    'malignant_cancer',
    'severe_liver_disease',
    'metastatic_solid_tumor',
    'aids',
] %}

WITH admissions AS (

    SELECT
        subject_id,
        hadm_id
    FROM {{ ref('stg_mimiciv_hosp__admissions') }}

),

diagnoses AS (

    SELECT
        hadm_id,
        icd_code,
        icd_version
    FROM {{ ref('stg_mimiciv_hosp__diagnoses_icd') }}

),

charlson_codes AS (

    SELECT
        comorbidity,
        icd_version,
        prefix_length,
        code_from,
        code_to
    FROM {{ ref('charlson_icd_codes') }}

),

ages AS (

    SELECT
        hadm_id,
        age
    FROM {{ ref('int_mimiciv_demographics__age') }}

),

distinct_codes AS (

    -- Each code once, so the range comparison runs over the code list, not every diagnosis.
    SELECT DISTINCT
        icd_code,
        icd_version
    FROM diagnoses

),

code_comorbidities AS (

    -- A code indicates a comorbidity when its first prefix_length characters lie between
    -- code_from and code_to (text comparison, so a range such as C45-C58 also takes C4A)
    -- for the code's ICD version.
    SELECT
        dc.icd_code,
        dc.icd_version,
        cc.comorbidity
    FROM distinct_codes AS dc
    INNER JOIN charlson_codes AS cc
        ON
            dc.icd_version = cc.icd_version
            AND SUBSTR(dc.icd_code, 1, cc.prefix_length) BETWEEN cc.code_from AND cc.code_to

),

diagnosed_comorbidities AS (

    SELECT DISTINCT
        dx.hadm_id,
        cm.comorbidity
    FROM diagnoses AS dx
    INNER JOIN code_comorbidities AS cm
        ON
            dx.icd_code = cm.icd_code
            AND dx.icd_version = cm.icd_version

),

admission_comorbidities AS (

    -- Every admission gets a 0/1 flag per comorbidity (0 without any diagnosis).
    SELECT
        ad.hadm_id,
        {%- for comorbidity in comorbidities %}
        MAX(CASE WHEN dc.comorbidity = '{{ comorbidity }}' THEN 1 ELSE 0 END) AS {{ comorbidity }}{{ ',' if not loop.last }}
        {%- endfor %}
    FROM admissions AS ad
    LEFT JOIN diagnosed_comorbidities AS dc
        ON ad.hadm_id = dc.hadm_id
    GROUP BY ad.hadm_id

),

age_scores AS (

    -- Age points: <= 50 -> 0, 51-60 -> 1, 61-70 -> 2, 71-80 -> 3, older (or unknown) -> 4.
    SELECT
        hadm_id,
        CASE
            WHEN age <= 50 THEN 0
            WHEN age <= 60 THEN 1
            WHEN age <= 70 THEN 2
            WHEN age <= 80 THEN 3
            ELSE 4
        END AS age_score
    FROM ages

),

charlson_index AS (

    -- Weights 1, except paraplegia and renal disease 2, AIDS 6; the milder form of liver
    -- disease (1 vs 3), diabetes (1 vs 2) and cancer (2 vs 6 for metastatic) counts only
    -- when the severe one is absent. An admission without an age row has a NULL index.
    SELECT
        ad.subject_id,
        ad.hadm_id,
        ag.age_score,
        {%- for comorbidity in comorbidities %}
        com.{{ comorbidity }},
        {%- endfor %}
        ag.age_score
        + com.myocardial_infarct
        + com.congestive_heart_failure
        + com.peripheral_vascular_disease
        + com.cerebrovascular_disease
        + com.dementia
        + com.chronic_pulmonary_disease
        + com.rheumatic_disease
        + com.peptic_ulcer_disease
        + GREATEST(com.mild_liver_disease, 3 * com.severe_liver_disease)
        + GREATEST(2 * com.diabetes_with_cc, com.diabetes_without_cc)
        + GREATEST(2 * com.malignant_cancer, 6 * com.metastatic_solid_tumor)
        + 2 * com.paraplegia
        + 2 * com.renal_disease
        + 6 * com.aids
        AS charlson_comorbidity_index
    FROM admissions AS ad
    LEFT JOIN admission_comorbidities AS com
        ON ad.hadm_id = com.hadm_id
    LEFT JOIN age_scores AS ag
        ON com.hadm_id = ag.hadm_id

)

SELECT * FROM charlson_index
