-- Thin staging view of mimiciv_hosp.prescriptions: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'prescriptions') }}

),

renamed AS (

    SELECT
        subject_id,
        hadm_id,
        pharmacy_id,
        poe_id,
        poe_seq,
        order_provider_id,
        starttime,
        stoptime,
        drug_type,
        drug,
        formulary_drug_cd,
        gsn,
        ndc,
        prod_strength,
        form_rx,
        dose_val_rx,
        dose_unit_rx,
        form_val_disp,
        form_unit_disp,
        doses_per_24_hrs,
        route
    FROM source

)

SELECT * FROM renamed
