-- Thin staging view of eicu_crd.apacheapsvar: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'apacheapsvar') }}

),

renamed AS (

    SELECT
        apacheapsvarid,
        patientunitstayid,
        intubated,
        vent,
        dialysis,
        eyes,
        motor,
        verbal,
        meds,
        urine,
        wbc,
        temperature,
        respiratoryrate,
        sodium,
        heartrate,
        meanbp,
        ph,
        hematocrit,
        creatinine,
        albumin,
        pao2,
        pco2,
        bun,
        glucose,
        bilirubin,
        fio2
    FROM source

)

SELECT * FROM renamed
