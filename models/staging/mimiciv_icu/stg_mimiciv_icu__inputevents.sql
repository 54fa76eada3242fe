-- Thin staging view of mimiciv_icu.inputevents: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_icu', 'inputevents') }}

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
        ordercategoryname,
        secondaryordercategoryname,
        ordercomponenttypedescription,
        ordercategorydescription,
        patientweight,
        totalamount,
        totalamountuom,
        isopenbag,
        continueinnextdept,
        statusdescription,
        originalamount,
        originalrate
    FROM source

)

SELECT * FROM renamed
