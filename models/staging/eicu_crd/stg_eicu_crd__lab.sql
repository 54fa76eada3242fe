-- Thin staging view of eicu_crd.lab: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'lab') }}

),

renamed AS (

    SELECT
        labid,
        patientunitstayid,
        labresultoffset,
        labtypeid,
        labname,
        labresult,
        labresulttext,
        labmeasurenamesystem,
        labmeasurenameinterface,
        labresultrevisedoffset
    FROM source

)

SELECT * FROM renamed
