{#-
  The infusions of one vasoactive agent, as mimic-code's medication concepts
  select them: every icu.inputevents row of the agent's item ids (seed
  vasoactive_agents), with no filter on order category, status or rate.
  `rate` is the vaso_rate expression over the inputevents row `ie` (its rate,
  rateuom and patientweight): the rate as charted unless the agent's model
  converts units.
-#}
{% macro vasoactive_infusions(agent, rate='ie.rate') %}
WITH agent_items AS (

    SELECT itemid
    FROM {{ ref('vasoactive_agents') }}
    WHERE agent = '{{ agent }}'

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
    FROM {{ ref('int_mimiciv_events__inputevents_used') }}

),

infusions AS (

    SELECT
        ie.stay_id,
        ie.linkorderid,
        {{ rate }} AS vaso_rate,
        ie.amount AS vaso_amount,
        ie.starttime,
        ie.endtime
    FROM inputevents AS ie
    INNER JOIN agent_items AS agent
        ON ie.itemid = agent.itemid

)

SELECT * FROM infusions
{% endmacro %}
