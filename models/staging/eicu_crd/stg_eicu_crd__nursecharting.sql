-- Thin staging view of eicu_crd.nursecharting: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'nursecharting') }}

),

renamed AS (

    SELECT
        nursingchartid,
        patientunitstayid,
        nursingchartoffset,
        nursingchartentryoffset,
        nursingchartcelltypecat,
        nursingchartcelltypevallabel,
        nursingchartcelltypevalname,
        nursingchartvalue
    FROM source

)

SELECT * FROM renamed
