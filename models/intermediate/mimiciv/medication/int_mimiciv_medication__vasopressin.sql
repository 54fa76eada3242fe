-- Vasopressin infusions, rate in units/hour.
-- mimic-code: mimic-iv/concepts/medication/vasopressin.sql (m4-infra snapshot).
{{ config(alias='vasopressin') }}

WITH agent_items AS (

    SELECT itemid
    FROM {{ ref('vasoactive_agents') }}
    WHERE agent = 'vasopressin'

),

inputevents AS (

    SELECT
        stay_id,
        linkorderid,
        itemid,
        rate,
        rateuom,
        amount,
        starttime,
        endtime
    FROM {{ ref('stg_mimiciv_icu__inputevents') }}

),

vasopressin_infusions AS (

    SELECT
        ie.stay_id,
        ie.linkorderid,
        -- Rows charted in units/min are converted to units/hour.
        CASE WHEN ie.rateuom = 'units/min' THEN ie.rate * 60.0 ELSE ie.rate END AS vaso_rate,
        ie.amount AS vaso_amount,
        ie.starttime,
        ie.endtime
    FROM inputevents AS ie
    INNER JOIN agent_items AS agent
        ON ie.itemid = agent.itemid

)

SELECT * FROM vasopressin_infusions
