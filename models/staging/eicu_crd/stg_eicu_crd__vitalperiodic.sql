-- Thin staging view of eicu_crd.vitalperiodic: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'vitalperiodic') }}

),

renamed AS (

    SELECT
        vitalperiodicid,
        patientunitstayid,
        observationoffset,
        temperature,
        sao2,
        heartrate,
        respiration,
        cvp,
        etco2,
        systemicsystolic,
        systemicdiastolic,
        systemicmean,
        pasystolic,
        padiastolic,
        pamean,
        st1,
        st2,
        st3,
        icp
    FROM source

)

SELECT * FROM renamed
