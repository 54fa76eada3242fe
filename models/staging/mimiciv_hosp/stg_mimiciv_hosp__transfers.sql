-- Thin staging view of mimiciv_hosp.transfers: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'transfers') }}

),

renamed AS (

    SELECT
        subject_id,
        hadm_id,
        transfer_id,
        eventtype,
        careunit,
        intime,
        outtime
    FROM source

)

SELECT * FROM renamed
