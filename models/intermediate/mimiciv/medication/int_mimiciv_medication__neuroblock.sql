-- Continuous infusions of neuromuscular blocking agents (cisatracurium, vecuronium).
-- mimic-code: mimic-iv/concepts/medication/neuroblock.sql (m4-infra snapshot).
{{ config(alias='neuroblock') }}

WITH blocker_items AS (

    SELECT itemid
    FROM {{ ref('neuromuscular_blockers') }}

),

inputevents AS (

    SELECT
        stay_id,
        orderid,
        itemid,
        rate,
        amount,
        starttime,
        endtime
    FROM {{ ref('int_mimiciv_events__inputevents_used') }}

),

blocker_infusions AS (

    -- Only rows with a rate are infusions; boluses (no rate) are left out.
    SELECT
        ie.stay_id,
        ie.orderid,
        ie.rate AS drug_rate,
        ie.amount AS drug_amount,
        ie.starttime,
        ie.endtime
    FROM inputevents AS ie
    INNER JOIN blocker_items AS blocker
        ON ie.itemid = blocker.itemid
    WHERE ie.rate IS NOT NULL

)

SELECT * FROM blocker_infusions
