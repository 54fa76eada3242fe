-- Prescriptions of non-steroidal anti-inflammatory drugs (NSAIDs).
-- mimic-code: mimic-iv/concepts/medication/nsaid.sql (m4-infra snapshot).
{{ config(alias='nsaid') }}

WITH prescriptions AS (

    SELECT
        subject_id,
        hadm_id,
        drug,
        starttime,
        stoptime
    FROM {{ ref('stg_mimiciv_hosp__prescriptions') }}

),

nsaid_patterns AS (

    SELECT name_pattern
    FROM {{ ref('drug_class_name_patterns') }}
    WHERE drug_class = 'nsaid'

),

drug_names AS (

    SELECT DISTINCT drug
    FROM prescriptions
    WHERE drug IS NOT NULL

),

nsaid_drug_names AS (

    -- A drug name is an NSAID when it contains one of the class's names, in any case.
    SELECT DISTINCT names.drug
    FROM drug_names AS names
    INNER JOIN nsaid_patterns AS pat
        ON UPPER(names.drug) LIKE '%' || UPPER(pat.name_pattern) || '%'

),

nsaid_prescriptions AS (

    SELECT
        rx.subject_id,
        rx.hadm_id,
        rx.drug AS nsaid,
        rx.starttime,
        rx.stoptime
    FROM prescriptions AS rx
    INNER JOIN nsaid_drug_names AS nsaid
        ON rx.drug = nsaid.drug

)

SELECT * FROM nsaid_prescriptions
