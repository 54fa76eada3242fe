{#-
  The meld concept's SQL (mimic-code organfailure/meld.sql as vendored by m4-infra): MELD-Na from
  the worst labs of the first ICU day. Shared by the concept (int_mimiciv_organfailure__meld) and
  the meld-24h reference's variants, which read its conventions otherwise (docs/explain.md); the
  defaults are mimic-code's.

  dialysis: 'creatinine_4' (mimic-code: dialysis on the first day sets creatinine to 4) or
  'ignored' (the measured creatinine, capped at 4, counts).
  sodium_correction: when the sodium term is added to the initial MELD: 'above_11' (UNOS 2016,
  mimic-code), 'always', or 'never' (the original MELD).
-#}
{% macro meld_score(dialysis='creatinine_4', sodium_correction='above_11') %}
WITH icustays AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_lab AS (

    SELECT
        stay_id,
        creatinine_max,
        bilirubin_total_max,
        inr_max,
        sodium_min
    FROM {{ ref('int_mimiciv_firstday__first_day_lab') }}

),

first_day_rrt AS (

    SELECT
        stay_id,
        dialysis_present
    FROM {{ ref('int_mimiciv_firstday__first_day_rrt') }}

),

cohort AS (

    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        lab.creatinine_max,
        lab.bilirubin_total_max,
        lab.inr_max,
        lab.sodium_min,
        rrt.dialysis_present AS rrt
    FROM icustays AS ie
    LEFT JOIN first_day_lab AS lab
        ON ie.stay_id = lab.stay_id
    LEFT JOIN first_day_rrt AS rrt
        ON ie.stay_id = rrt.stay_id

),

component_scores AS (

    -- Each lab is bounded below by 1 (LN(1) = 0), creatinine above by 4 and set to 4
    -- under dialysis; a missing lab scores as 1. Sodium is bounded to 125-137 mmol/L
    -- and a missing sodium adds nothing.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        rrt,
        creatinine_max,
        bilirubin_total_max,
        inr_max,
        sodium_min,
        CASE
            WHEN sodium_min IS NULL THEN 0.0
            WHEN sodium_min > 137 THEN 0.0
            WHEN sodium_min < 125 THEN 12.0
            ELSE 137.0 - sodium_min
        END AS sodium_score,
        CASE
            WHEN {{ 'rrt = 1 OR ' if dialysis == 'creatinine_4' else '' }}creatinine_max > 4.0 THEN 0.957 * LN(4)
            WHEN creatinine_max < 1 THEN 0.957 * LN(1)
            ELSE 0.957 * COALESCE(LN(creatinine_max), LN(1))
        END AS creatinine_score,
        CASE
            WHEN bilirubin_total_max < 1 THEN 0.378 * LN(1)
            ELSE 0.378 * COALESCE(LN(bilirubin_total_max), LN(1))
        END AS bilirubin_score,
        CASE
            WHEN inr_max < 1 THEN 1.120 * LN(1) + 0.643
            ELSE 1.120 * COALESCE(LN(inr_max), LN(1)) + 0.643
        END AS inr_score
    FROM cohort

),

initial_scores AS (

    -- MELD(i) = 10 x (0.957 ln(creatinine) + 0.378 ln(bilirubin) + 1.120 ln(INR) + 0.643),
    -- the sum rounded to one decimal (after a cast to DECIMAL) and capped at 40.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        rrt,
        creatinine_max,
        bilirubin_total_max,
        inr_max,
        sodium_min,
        sodium_score,
        CASE
            WHEN creatinine_score + bilirubin_score + inr_score > 4 THEN 40.0
            ELSE ROUND({{ dbt.safe_cast('creatinine_score + bilirubin_score + inr_score', 'DECIMAL') }}, 1) * 10
        END AS meld_initial
    FROM component_scores

),

meld_scores AS (

    -- MELD-Na = MELD(i) + 1.32 x (137 - Na) - 0.033 x MELD(i) x (137 - Na), applied
    -- only when MELD(i) > 11.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        meld_initial,
        {%- if sodium_correction == 'above_11' %}
        CASE
            WHEN meld_initial > 11
                THEN meld_initial + 1.32 * sodium_score - 0.033 * meld_initial * sodium_score
            ELSE meld_initial
        END AS meld,
        {%- elif sodium_correction == 'always' %}
        meld_initial + 1.32 * sodium_score - 0.033 * meld_initial * sodium_score AS meld,
        {%- else %}
        meld_initial AS meld,
        {%- endif %}
        rrt,
        creatinine_max,
        bilirubin_total_max,
        inr_max,
        sodium_min
    FROM initial_scores

)

SELECT * FROM meld_scores
{% endmacro %}
