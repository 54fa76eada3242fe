-- Reference: MELD(-Na) score from the first day of each ICU stay (task family meld,
-- alias meld-24h). One row per ICU stay.
-- Kamath PS et al. A model to predict survival in patients with end-stage liver disease.
-- Hepatology 2001;33:464-470. Kim WR et al. Hyponatremia and mortality among patients on the
-- liver-transplant waiting list. N Engl J Med 2008;359:1018-1026.
-- Conventions are listed in ref_meld_24h.yml.

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

first_day_values AS (
    -- First-day labs (intime - 6 h to intime + 24 h) and whether dialysis was present.
    SELECT
        stays.subject_id,
        stays.hadm_id,
        stays.stay_id,
        labs.creatinine_max,
        labs.bilirubin_total_max,
        labs.inr_max,
        labs.sodium_min,
        rrt.dialysis_present AS rrt
    FROM icu_stays AS stays
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS labs
        ON stays.stay_id = labs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_rrt') }} AS rrt
        ON stays.stay_id = rrt.stay_id
),

component_scores AS (
    -- Each value is floored at 1 (ln 1 = 0); a missing value contributes ln 1.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CASE
            WHEN sodium_min IS NULL THEN 0.0
            WHEN sodium_min > 137 THEN 0.0
            WHEN sodium_min < 125 THEN 12.0
            ELSE 137.0 - sodium_min
        END AS sodium_score,
        -- Dialysis or creatinine above 4 mg/dL is scored as creatinine 4.
        CASE
            WHEN rrt = 1 OR creatinine_max > 4.0 THEN 0.957 * LN(4)
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
    FROM first_day_values
),

initial_meld AS (
    -- MELD before the sodium term: the component sum rounded to one decimal, times 10,
    -- capped at 40. The sum is cast to DECIMAL (DuckDB's default DECIMAL(18,3)) before
    -- rounding, exactly as the original does.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        sodium_score,
        CASE
            WHEN creatinine_score + bilirubin_score + inr_score > 4 THEN 40.0
            ELSE ROUND(TRY_CAST(creatinine_score + bilirubin_score + inr_score AS DECIMAL), 1) * 10
        END AS meld_initial
    FROM component_scores
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    -- The sodium adjustment applies only above an initial MELD of 11.
    CAST(
        CASE
            WHEN meld_initial > 11
                THEN meld_initial + 1.32 * sodium_score - 0.033 * meld_initial * sodium_score
            ELSE meld_initial
        END AS DOUBLE
    ) AS meld
FROM initial_meld
