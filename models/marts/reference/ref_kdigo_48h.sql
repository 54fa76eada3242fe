-- Reference: highest KDIGO acute kidney injury stage in the first 48 hours of each ICU stay
-- (task family kdigo, alias kdigo-48h). One row per ICU stay.
-- KDIGO AKI Work Group. KDIGO Clinical Practice Guideline for Acute Kidney Injury.
-- Kidney Int Suppl 2012;2:1-138. Conventions are listed in ref_kdigo_48h.yml.

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id, intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

stages_in_window AS (
    -- Hourly-or-event KDIGO stages charted from intime to intime + 48 h, both inclusive.
    SELECT
        stays.stay_id,
        stages.aki_stage,
        stages.aki_stage_creat,
        stages.aki_stage_uo,
        stages.aki_stage_crrt
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_organfailure__kdigo_stages') }} AS stages
        ON stays.stay_id = stages.stay_id
        AND stages.charttime >= stays.intime
        AND stages.charttime <= {{ dbt.dateadd('hour', 48, 'stays.intime') }}
),

worst_stage AS (
    SELECT
        stay_id,
        MAX(aki_stage) AS aki_stage,
        MAX(aki_stage_creat) AS aki_stage_creat,
        MAX(aki_stage_uo) AS aki_stage_uo,
        -- Any CRRT in the window is stage 3.
        MAX(CASE WHEN aki_stage_crrt > 0 THEN 3 ELSE 0 END) AS aki_stage_crrt
    FROM stages_in_window
    GROUP BY stay_id
)

SELECT
    CAST(stays.subject_id AS INTEGER) AS subject_id,
    CAST(stays.hadm_id AS INTEGER) AS hadm_id,
    CAST(stays.stay_id AS INTEGER) AS stay_id,
    -- No staged measurement in the window (or only NULL stages) is stage 0.
    CAST(COALESCE(worst.aki_stage, 0) AS INTEGER) AS aki_stage,
    CAST(COALESCE(worst.aki_stage_creat, 0) AS INTEGER) AS aki_stage_creat,
    CAST(COALESCE(worst.aki_stage_uo, 0) AS INTEGER) AS aki_stage_uo,
    CAST(COALESCE(worst.aki_stage_crrt, 0) AS INTEGER) AS aki_stage_crrt
FROM icu_stays AS stays
LEFT JOIN worst_stage AS worst
    ON stays.stay_id = worst.stay_id
