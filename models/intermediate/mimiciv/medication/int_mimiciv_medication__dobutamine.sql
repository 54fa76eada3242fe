-- Dobutamine infusions (inotrope), rate in mcg/kg/min as charted.
-- mimic-code: mimic-iv/concepts/medication/dobutamine.sql (m4-infra snapshot).
{{ config(alias='dobutamine') }}

WITH agent_items AS (

    SELECT itemid
    FROM {{ ref('vasoactive_agents') }}
    WHERE agent = 'dobutamine'

),

inputevents AS (

    SELECT
        stay_id,
        linkorderid,
        itemid,
        rate,
        amount,
        starttime,
        endtime
    FROM {{ ref('stg_mimiciv_icu__inputevents') }}

),

dobutamine_infusions AS (

    SELECT
        ie.stay_id,
        ie.linkorderid,
        ie.rate AS vaso_rate,
        ie.amount AS vaso_amount,
        ie.starttime,
        ie.endtime
    FROM inputevents AS ie
    INNER JOIN agent_items AS agent
        ON ie.itemid = agent.itemid

)

SELECT * FROM dobutamine_infusions
