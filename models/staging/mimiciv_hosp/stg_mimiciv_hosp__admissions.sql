-- Thin staging view of mimiciv_hosp.admissions: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'admissions') }}

),

renamed AS (

    SELECT
        subject_id,
        hadm_id,
        admittime,
        dischtime,
        deathtime,
        admission_type,
        admit_provider_id,
        admission_location,
        discharge_location,
        insurance,
        language,
        marital_status,
        race,
        edregtime,
        edouttime,
        hospital_expire_flag
    FROM source

)

SELECT * FROM renamed
