-- Prescriptions of angiotensin-converting-enzyme (ACE) inhibitors.
-- mimic-code: mimic-iv/concepts/medication/acei.sql (m4-infra snapshot).
{{ config(alias='acei') }}

WITH prescriptions AS (

    SELECT
        subject_id,
        hadm_id,
        drug,
        starttime,
        stoptime
    FROM {{ ref('stg_mimiciv_hosp__prescriptions') }}

),

acei_patterns AS (

    SELECT name_pattern
    FROM {{ ref('drug_class_name_patterns') }}
    WHERE drug_class = 'acei'

),

drug_names AS (

    SELECT DISTINCT drug
    FROM prescriptions
    WHERE drug IS NOT NULL

),

acei_drug_names AS (

    -- A drug name is an ACE inhibitor when it contains one of the class's names, in any case.
    SELECT DISTINCT names.drug
    FROM drug_names AS names
    INNER JOIN acei_patterns AS pat
        ON UPPER(names.drug) LIKE '%' || UPPER(pat.name_pattern) || '%'

),

acei_prescriptions AS (

    SELECT
        rx.subject_id,
        rx.hadm_id,
        rx.drug AS acei,
        rx.starttime,
        rx.stoptime
    FROM prescriptions AS rx
    INNER JOIN acei_drug_names AS acei
        ON rx.drug = acei.drug

)

SELECT * FROM acei_prescriptions
