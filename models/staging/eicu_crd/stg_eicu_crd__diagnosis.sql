-- Thin staging view of eicu_crd.diagnosis: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'diagnosis') }}

),

renamed AS (

    SELECT
        diagnosisid,
        patientunitstayid,
        activeupondischarge,
        diagnosisoffset,
        diagnosisstring,
        icd9code,
        diagnosispriority
    FROM source

)

SELECT * FROM renamed
