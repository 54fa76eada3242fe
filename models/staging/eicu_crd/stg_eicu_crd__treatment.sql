-- Thin staging view of eicu_crd.treatment: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'treatment') }}

),

renamed AS (

    SELECT
        treatmentid,
        patientunitstayid,
        treatmentoffset,
        treatmentstring,
        activeupondischarge
    FROM source

)

SELECT * FROM renamed
