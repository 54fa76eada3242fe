{{ config(schema='mimiciv_events') }}
-- The one pass over mimiciv_icu.procedureevents: the rows of the item ids concepts read
-- (value sets invasive_line_items and rrt_items' dialysis procedures), with the columns
-- they read. invasive_line and rrt read procedures from here.
WITH used_items AS (

    SELECT itemid FROM {{ ref('invasive_line_items') }}
    UNION ALL
    SELECT itemid FROM {{ ref('rrt_items') }} WHERE source_table = 'procedureevents'

),

used_procedureevents AS (

    SELECT
        pe.subject_id,
        pe.hadm_id,
        pe.stay_id,
        pe.starttime,
        pe.endtime,
        pe.itemid,
        pe.value,
        pe.location
    FROM {{ ref('stg_mimiciv_icu__procedureevents') }} AS pe
    WHERE pe.itemid IN (SELECT used_items.itemid FROM used_items)

)

SELECT * FROM used_procedureevents
