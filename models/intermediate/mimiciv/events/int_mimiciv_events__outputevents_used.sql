{{ config(schema='mimiciv_events') }}
-- The one pass over mimiciv_icu.outputevents: the urine output rows (value set
-- mimiciv_urine_output_items) with the columns the urine output concept reads.
WITH used_items AS (

    SELECT itemid FROM {{ ref('mimiciv_urine_output_items') }}

),

used_outputevents AS (

    SELECT
        oe.subject_id,
        oe.hadm_id,
        oe.stay_id,
        oe.charttime,
        oe.itemid,
        oe.value
    FROM {{ ref('stg_mimiciv_icu__outputevents') }} AS oe
    WHERE oe.itemid IN (SELECT used_items.itemid FROM used_items)

)

SELECT * FROM used_outputevents
