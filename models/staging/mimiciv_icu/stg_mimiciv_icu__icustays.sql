-- Thin staging view of mimiciv_icu.icustays: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_icu', 'icustays') }}

),

renamed AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        first_careunit,
        last_careunit,
        intime,
        outtime,
        los
    FROM source

)

SELECT * FROM renamed
