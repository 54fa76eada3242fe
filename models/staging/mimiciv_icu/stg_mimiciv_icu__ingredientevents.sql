-- Thin staging view of mimiciv_icu.ingredientevents: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_icu', 'ingredientevents') }}

),

renamed AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        caregiver_id,
        starttime,
        endtime,
        storetime,
        itemid,
        amount,
        amountuom,
        rate,
        rateuom,
        orderid,
        linkorderid,
        statusdescription,
        originalamount,
        originalrate
    FROM source

)

SELECT * FROM renamed
