{{ config(schema='mimiciv_events') }}
-- The one pass over mimiciv_icu.inputevents: the rows of the item ids concepts read
-- (value sets vasoactive_agents, neuromuscular_blockers, and rrt_items' CRRT infusions),
-- with the columns they read. The eight medication concepts and rrt read infusions from
-- here, so the source table is scanned once per build instead of once per agent.
WITH used_items AS (

    SELECT itemid FROM {{ ref('vasoactive_agents') }}
    UNION ALL
    SELECT itemid FROM {{ ref('neuromuscular_blockers') }}
    UNION ALL
    SELECT itemid FROM {{ ref('rrt_items') }} WHERE source_table = 'inputevents'

),

used_inputevents AS (

    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        ie.starttime,
        ie.endtime,
        ie.itemid,
        ie.amount,
        ie.rate,
        ie.rateuom,
        ie.orderid,
        ie.linkorderid,
        ie.patientweight
    FROM {{ ref('stg_mimiciv_icu__inputevents') }} AS ie
    WHERE ie.itemid IN (SELECT used_items.itemid FROM used_items)

)

SELECT * FROM used_inputevents
