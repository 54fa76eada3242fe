-- Thin staging view of eicu_crd.respiratorycharting: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'respiratorycharting') }}

),

renamed AS (

    SELECT
        respchartid,
        patientunitstayid,
        respchartoffset,
        respchartentryoffset,
        respcharttypecat,
        respchartvaluelabel,
        respchartvalue
    FROM source

)

SELECT * FROM renamed
