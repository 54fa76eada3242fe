-- Reference: Systemic Inflammatory Response Syndrome criteria on the first day of each ICU
-- stay (task family sirs, alias sirs-24h). One row per ICU stay.
-- American College of Chest Physicians / Society of Critical Care Medicine Consensus
-- Conference. Crit Care Med 1992;20:864-874. Conventions are listed in ref_sirs_24h.yml.

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

first_day_values AS (
    -- First-day aggregates (intime - 6 h to intime + 24 h): vital signs, arterial PaCO2,
    -- white cells and bands.
    SELECT
        stays.stay_id,
        vitals.temperature_min,
        vitals.temperature_max,
        vitals.heart_rate_max,
        vitals.resp_rate_max,
        arterial_gas.pco2_min AS paco2_min,
        labs.wbc_min,
        labs.wbc_max,
        labs.bands_max
    FROM icu_stays AS stays
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_bg_art') }} AS arterial_gas
        ON stays.stay_id = arterial_gas.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS vitals
        ON stays.stay_id = vitals.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS labs
        ON stays.stay_id = labs.stay_id
),

criteria AS (
    -- Each criterion is 1 when met, 0 when not, NULL when its data are missing.
    SELECT
        stay_id,
        CASE
            WHEN temperature_min < 36.0 THEN 1
            WHEN temperature_max > 38.0 THEN 1
            WHEN temperature_min IS NULL THEN NULL
            ELSE 0
        END AS temp_score,
        CASE
            WHEN heart_rate_max > 90.0 THEN 1
            WHEN heart_rate_max IS NULL THEN NULL
            ELSE 0
        END AS heart_rate_score,
        CASE
            WHEN resp_rate_max > 20.0 THEN 1
            WHEN paco2_min < 32.0 THEN 1
            WHEN COALESCE(resp_rate_max, paco2_min) IS NULL THEN NULL
            ELSE 0
        END AS resp_score,
        CASE
            WHEN wbc_min < 4.0 THEN 1
            WHEN wbc_max > 12.0 THEN 1
            -- More than 10 % immature neutrophils (bands).
            WHEN bands_max > 10 THEN 1
            WHEN COALESCE(wbc_min, bands_max) IS NULL THEN NULL
            ELSE 0
        END AS wbc_score
    FROM first_day_values
)

SELECT
    CAST(stays.subject_id AS INTEGER) AS subject_id,
    CAST(stays.hadm_id AS INTEGER) AS hadm_id,
    CAST(stays.stay_id AS INTEGER) AS stay_id,
    -- A criterion without data counts as not met (0).
    CAST(
        COALESCE(criteria.temp_score, 0)
        + COALESCE(criteria.heart_rate_score, 0)
        + COALESCE(criteria.resp_score, 0)
        + COALESCE(criteria.wbc_score, 0)
        AS INTEGER
    ) AS sirs,
    CAST(COALESCE(criteria.temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(criteria.heart_rate_score, 0) AS INTEGER) AS heart_rate_score,
    CAST(COALESCE(criteria.resp_score, 0) AS INTEGER) AS resp_score,
    CAST(COALESCE(criteria.wbc_score, 0) AS INTEGER) AS wbc_score
FROM icu_stays AS stays
LEFT JOIN criteria
    ON stays.stay_id = criteria.stay_id
