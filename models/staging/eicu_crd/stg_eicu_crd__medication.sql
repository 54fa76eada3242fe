-- Thin staging view of eicu_crd.medication: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'medication') }}

),

renamed AS (

    SELECT
        medicationid,
        patientunitstayid,
        drugorderoffset,
        drugstartoffset,
        drugivadmixture,
        drugordercancelled,
        drugname,
        drughiclseqno,
        dosage,
        routeadmin,
        frequency,
        loadingdose,
        prn,
        drugstopoffset,
        gtc
    FROM source

)

SELECT * FROM renamed
