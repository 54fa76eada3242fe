-- Vasoactive agent doses over time: the stay's timeline is cut at every start and end
-- of any vasoactive infusion, and each piece carries the rate of each agent running
-- throughout it.
-- mimic-code: mimic-iv/concepts/medication/vasoactive_agent.sql (m4-infra snapshot).
{{ config(alias='vasoactive_agent') }}

{%- set agents = ['dobutamine', 'dopamine', 'epinephrine', 'norepinephrine', 'phenylephrine', 'vasopressin', 'milrinone'] %}

WITH
{%- for agent in agents %}

{{ agent }} AS (

    SELECT
        stay_id,
        vaso_rate,
        starttime,
        endtime
    FROM {{ ref('int_mimiciv_medication__' ~ agent) }}

),
{%- endfor %}

change_times AS (

    -- Every start and every end of any infusion, once per stay.
    {%- for agent in agents %}
    SELECT stay_id, starttime AS vasotime FROM {{ agent }}
    UNION DISTINCT
    {%- endfor %}
    {%- for agent in agents %}
    SELECT stay_id, endtime AS vasotime FROM {{ agent }}
    {%- if not loop.last %}
    UNION DISTINCT
    {%- endif %}
    {%- endfor %}

),

intervals AS (

    -- Each change time starts an interval that ends at the next change time.
    SELECT
        stay_id,
        vasotime AS starttime,
        LEAD(vasotime, 1) OVER (PARTITION BY stay_id ORDER BY vasotime NULLS FIRST) AS endtime
    FROM change_times

),

agent_rates AS (

    -- An agent's rate applies to an interval lying entirely within one of its infusions;
    -- overlapping infusions of the same agent give one row each.
    SELECT
        t.stay_id,
        t.starttime,
        t.endtime,
        dop.vaso_rate AS dopamine,
        epi.vaso_rate AS epinephrine,
        nor.vaso_rate AS norepinephrine,
        phe.vaso_rate AS phenylephrine,
        vas.vaso_rate AS vasopressin,
        dob.vaso_rate AS dobutamine,
        mil.vaso_rate AS milrinone
    FROM intervals AS t
    {%- for agent, alias in [('dobutamine', 'dob'), ('dopamine', 'dop'), ('epinephrine', 'epi'), ('norepinephrine', 'nor'), ('phenylephrine', 'phe'), ('vasopressin', 'vas'), ('milrinone', 'mil')] %}
    LEFT JOIN {{ agent }} AS {{ alias }}
        ON
            t.stay_id = {{ alias }}.stay_id
            AND t.starttime >= {{ alias }}.starttime
            AND t.endtime <= {{ alias }}.endtime
    {%- endfor %}
    WHERE t.endtime IS NOT NULL

)

SELECT * FROM agent_rates
