-- Reference: norepinephrine-equivalent vasopressor dose per infusion interval (task family
-- vasopressor-equivalents). One row per stay_id, starttime (and its endtime).
-- Goradia S et al. Vasopressor dose equivalence: a scoping review and suggested formula.
-- J Crit Care 2021;61:233-240. Conventions are listed in ref_vasopressor_equivalents.yml.

WITH vasopressor_intervals AS (
    -- Intervals of int_mimiciv_medication__vasoactive_agent (doses in mcg/kg/min except
    -- vasopressin in units/hour) where at least one of the five vasopressors runs;
    -- intervals with only dobutamine or milrinone are not vasopressor time.
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
    WHERE norepinephrine IS NOT NULL
        OR epinephrine IS NOT NULL
        OR phenylephrine IS NOT NULL
        OR dopamine IS NOT NULL
        OR vasopressin IS NOT NULL
),

interval_doses AS (
    -- NE + epinephrine + phenylephrine / 10 + dopamine / 100 + vasopressin x 2.5 / 60; an
    -- absent agent adds 0. Rounded after a cast to DECIMAL (DuckDB's default DECIMAL(18,3),
    -- so effectively to 3 decimals), exactly as the original.
    SELECT
        stay_id,
        starttime,
        endtime,
        ROUND(
            {{ dbt.safe_cast("
                COALESCE(norepinephrine, 0)
                + COALESCE(epinephrine, 0)
                + COALESCE(phenylephrine / 10, 0)
                + COALESCE(dopamine / 100, 0)
                + COALESCE(vasopressin * 2.5 / 60, 0)
            ", 'DECIMAL') }},
            4
        ) AS norepinephrine_equivalent_dose
    FROM vasopressor_intervals
)

SELECT
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(starttime AS {{ m4_type('datetime') }}) AS starttime,
    CAST(endtime AS {{ m4_type('datetime') }}) AS endtime,
    -- Duplicate rows for the same interval collapse to the highest dose.
    CAST(MAX(norepinephrine_equivalent_dose) AS {{ m4_type('double') }}) AS norepinephrine_equivalent_dose
FROM interval_doses
GROUP BY stay_id, starttime, endtime
