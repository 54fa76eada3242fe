-- Thin staging view of eicu_crd.physicalexam: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'physicalexam') }}

),

renamed AS (

    SELECT
        physicalexamid,
        patientunitstayid,
        physicalexamoffset,
        physicalexampath,
        physicalexamvalue,
        physicalexamtext
    FROM source

)

SELECT * FROM renamed
