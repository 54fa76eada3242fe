-- Thin staging view of mimiciv_hosp.microbiologyevents: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'microbiologyevents') }}

),

renamed AS (

    SELECT
        microevent_id,
        subject_id,
        hadm_id,
        micro_specimen_id,
        order_provider_id,
        chartdate,
        charttime,
        spec_itemid,
        spec_type_desc,
        test_seq,
        storedate,
        storetime,
        test_itemid,
        test_name,
        org_itemid,
        org_name,
        isolate_num,
        quantity,
        ab_itemid,
        ab_name,
        dilution_text,
        dilution_comparison,
        dilution_value,
        interpretation,
        comments
    FROM source

)

SELECT * FROM renamed
