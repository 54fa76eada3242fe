-- Thin staging view of mimiciv_hosp.labevents: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'labevents') }}

),

renamed AS (

    SELECT
        labevent_id,
        subject_id,
        hadm_id,
        specimen_id,
        itemid,
        order_provider_id,
        charttime,
        storetime,
        value,
        valuenum,
        valueuom,
        ref_range_lower,
        ref_range_upper,
        flag,
        priority,
        comments
    FROM source

)

SELECT * FROM renamed
