-- Norepinephrine infusions, rate in mcg/kg/min.
-- mimic-code: mimic-iv/concepts/medication/norepinephrine.sql (m4-infra snapshot).
{{ config(alias='norepinephrine') }}

WITH agent_items AS (

    SELECT itemid
    FROM {{ ref('vasoactive_agents') }}
    WHERE agent = 'norepinephrine'

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

norepinephrine_infusions AS (

    SELECT
        ie.stay_id,
        ie.linkorderid,
        -- Rows charted in mg/kg/min are converted to mcg/kg/min, except those with a
        -- recorded weight of exactly 1 kg, whose rate is kept as charted (mimic-code rule).
        CASE
            WHEN ie.rateuom = 'mg/kg/min' AND ie.patientweight = 1 THEN ie.rate
            WHEN ie.rateuom = 'mg/kg/min' THEN ie.rate * 1000.0
            ELSE ie.rate
        END AS vaso_rate,
        ie.amount AS vaso_amount,
        ie.starttime,
        ie.endtime
    FROM inputevents AS ie
    INNER JOIN agent_items AS agent
        ON ie.itemid = agent.itemid

)

SELECT * FROM norepinephrine_infusions
