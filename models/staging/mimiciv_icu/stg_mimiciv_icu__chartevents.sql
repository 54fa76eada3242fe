-- Thin staging view of mimiciv_icu.chartevents: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_icu', 'chartevents') }}

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
        valuenum,
        valueuom,
        warning
    FROM source

)

SELECT * FROM renamed
