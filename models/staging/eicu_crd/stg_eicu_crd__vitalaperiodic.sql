-- Thin staging view of eicu_crd.vitalaperiodic: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'vitalaperiodic') }}

),

renamed AS (

    SELECT
        vitalaperiodicid,
        patientunitstayid,
        observationoffset,
        noninvasivesystolic,
        noninvasivediastolic,
        noninvasivemean,
        paop,
        cardiacoutput,
        cardiacinput,
        svr,
        svri,
        pvr,
        pvri
    FROM source

)

SELECT * FROM renamed
