-- Thin staging view of eicu_crd.intakeoutput: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'intakeoutput') }}

),

renamed AS (

    SELECT
        intakeoutputid,
        patientunitstayid,
        intakeoutputoffset,
        intaketotal,
        outputtotal,
        dialysistotal,
        nettotal,
        intakeoutputentryoffset,
        cellpath,
        celllabel,
        cellvaluenumeric,
        cellvaluetext
    FROM source

)

SELECT * FROM renamed
