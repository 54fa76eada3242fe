-- Thin staging view of eicu_crd.infusiondrug: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'infusiondrug') }}

),

renamed AS (

    SELECT
        infusiondrugid,
        patientunitstayid,
        infusionoffset,
        drugname,
        drugrate,
        infusionrate,
        drugamount,
        volumeoffluid,
        patientweight
    FROM source

)

SELECT * FROM renamed
