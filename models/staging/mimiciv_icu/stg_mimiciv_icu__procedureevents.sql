-- Thin staging view of mimiciv_icu.procedureevents: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_icu', 'procedureevents') }}

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
        value,
        valueuom,
        location,
        locationcategory,
        orderid,
        linkorderid,
        ordercategoryname,
        ordercategorydescription,
        patientweight,
        isopenbag,
        continueinnextdept,
        statusdescription,
        originalamount,
        originalrate
    FROM source

)

SELECT * FROM renamed
