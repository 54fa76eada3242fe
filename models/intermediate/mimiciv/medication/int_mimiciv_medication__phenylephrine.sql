-- Phenylephrine infusions, rate in mcg/kg/min.
-- mimic-code: mimic-iv/concepts/medication/phenylephrine.sql (m4-infra snapshot).
{{ config(alias='phenylephrine') }}

WITH agent_items AS (

    SELECT itemid
    FROM {{ ref('vasoactive_agents') }}
    WHERE agent = 'phenylephrine'

),

inputevents AS (

    SELECT
        stay_id,
        linkorderid,
        itemid,
        rate,
        rateuom,
        patientweight,
        amount,
        starttime,
        endtime
    FROM {{ ref('stg_mimiciv_icu__inputevents') }}

),

phenylephrine_infusions AS (

    SELECT
        ie.stay_id,
        ie.linkorderid,
        -- Rows charted in mcg/min are divided by the patient's weight to give mcg/kg/min.
        CASE WHEN ie.rateuom = 'mcg/min' THEN ie.rate / ie.patientweight ELSE ie.rate END AS vaso_rate,
        ie.amount AS vaso_amount,
        ie.starttime,
        ie.endtime
    FROM inputevents AS ie
    INNER JOIN agent_items AS agent
        ON ie.itemid = agent.itemid

)

SELECT * FROM phenylephrine_infusions
