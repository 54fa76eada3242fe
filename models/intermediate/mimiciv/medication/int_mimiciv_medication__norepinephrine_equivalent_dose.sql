-- Norepinephrine-equivalent dose (NED) of the vasopressors running in each interval.
-- mimic-code: mimic-iv/concepts/medication/norepinephrine_equivalent_dose.sql (m4-infra snapshot).
-- Goradia S, et al. Vasopressor dose equivalence: a scoping review and suggested formula.
-- J Crit Care 2021;61:233-240.
{{ config(alias='norepinephrine_equivalent_dose') }}

WITH vasoactive_intervals AS (

    SELECT
        stay_id,
        starttime,
        endtime,
        norepinephrine,
        epinephrine,
        phenylephrine,
        dopamine,
        vasopressin
    FROM {{ ref('int_mimiciv_medication__vasoactive_agent') }}

),

agent_factors AS (

    SELECT
        agent,
        ne_equivalent_multiplier AS multiplier,
        ne_equivalent_divisor AS divisor
    FROM {{ ref('vasoactive_agents') }}

),

ned_factors AS (

    -- One row: the NED factor of each vasopressor as multiplier / divisor
    -- (norepinephrine 1, epinephrine 1, phenylephrine 1/10, dopamine 1/100, vasopressin 2.5/60).
    SELECT
        {%- for agent in ['norepinephrine', 'epinephrine', 'phenylephrine', 'dopamine', 'vasopressin'] %}
        MAX(CASE WHEN agent = '{{ agent }}' THEN multiplier END) AS {{ agent }}_multiplier,
        MAX(CASE WHEN agent = '{{ agent }}' THEN divisor END) AS {{ agent }}_divisor{{ ',' if not loop.last }}
        {%- endfor %}
    FROM agent_factors

),

equivalent_doses AS (

    -- NED in mcg/kg/min: norepinephrine + epinephrine + phenylephrine / 10 + dopamine / 100
    -- + vasopressin (units/hour) * 2.5 / 60; an absent agent adds 0. The sum is cast to
    -- DECIMAL (DuckDB's default DECIMAL(18,3)) before rounding, as mimic-code does.
    SELECT
        va.stay_id,
        va.starttime,
        va.endtime,
        ROUND(
            {{ dbt.safe_cast("
                COALESCE(va.norepinephrine * f.norepinephrine_multiplier / f.norepinephrine_divisor, 0)
                + COALESCE(va.epinephrine * f.epinephrine_multiplier / f.epinephrine_divisor, 0)
                + COALESCE(va.phenylephrine * f.phenylephrine_multiplier / f.phenylephrine_divisor, 0)
                + COALESCE(va.dopamine * f.dopamine_multiplier / f.dopamine_divisor, 0)
                + COALESCE(va.vasopressin * f.vasopressin_multiplier / f.vasopressin_divisor, 0)
            ", 'DECIMAL') }},
            4
        ) AS norepinephrine_equivalent_dose
    FROM vasoactive_intervals AS va
    CROSS JOIN ned_factors AS f
    WHERE
        va.norepinephrine IS NOT NULL
        OR va.epinephrine IS NOT NULL
        OR va.phenylephrine IS NOT NULL
        OR va.dopamine IS NOT NULL
        OR va.vasopressin IS NOT NULL

)

SELECT * FROM equivalent_doses
