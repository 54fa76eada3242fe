-- Thin staging view of mimiciv_icu.outputevents: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_icu', 'outputevents') }}

),

renamed AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        caregiver_id,
        charttime,
        storetime,
        itemid,
        value,
        valueuom
    FROM source

)

SELECT * FROM renamed
