{#-
  The norepinephrine-equivalent dose reference's SQL (model ref_vasopressor_equivalents), under its
  conventions as declared in models/marts/reference/ref_vasopressor_equivalents.yml, or with `flip`
  changing one of them (a variant, docs/explain.md). Goradia S et al. J Crit Care 2021;61:233-240.
-#}
{% macro m4_reference_vasopressor_equivalents(flip={}) %}
{%- set conventions = m4_conventions('ref_vasopressor_equivalents', ['intervals', 'vasopressin_units'], flip) -%}

WITH vasopressor_intervals AS (
    -- Intervals of int_mimiciv_medication__vasoactive_agent (doses in mcg/kg/min except
    -- vasopressin in units/hour) where at least one of the five vasopressors runs;
    -- intervals with only dobutamine or milrinone are not vasopressor time (convention intervals).
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
    {%- if conventions.intervals.vasopressors_only %}
    WHERE norepinephrine IS NOT NULL
        OR epinephrine IS NOT NULL
        OR phenylephrine IS NOT NULL
        OR dopamine IS NOT NULL
        OR vasopressin IS NOT NULL
    {%- endif %}
),

interval_doses AS (
    -- NE + epinephrine + phenylephrine / 10 + dopamine / 100 + vasopressin x 2.5 / 60 (units/hour;
    -- convention vasopressin_units); an
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
                + COALESCE(vasopressin * " ~ conventions.vasopressin_units.factor ~ ", 0)
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
{% endmacro %}
