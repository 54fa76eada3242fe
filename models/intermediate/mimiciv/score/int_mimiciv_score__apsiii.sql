-- Acute Physiology Score III (APS III, the physiology part of APACHE III) over the first
-- day of each ICU stay.
-- Knaus WA, Wagner DP, Draper EA, et al. The APACHE III prognostic system. Risk prediction of
-- hospital mortality for critically ill hospitalized adults. Chest. 1991;100(6):1619-1636.
-- Follows mimic-code mimic-iv/concepts/score/apsiii.sql as vendored by m4-infra 0.5.9.
{{ config(alias='apsiii') }}

WITH icustays AS (

    SELECT * FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

invasive_ventilation AS (

    SELECT
        stay_id,
        starttime,
        endtime
    FROM {{ ref('int_mimiciv_treatment__ventilation') }}
    WHERE ventilation_status = 'InvasiveVent'

),

stay_arterial_gases AS (

    -- Arterial gases of the admission taken during the stay [intime, outtime) (the whole
    -- stay, not only the first day), flagged when taken during invasive ventilation.
    SELECT
        icustays.stay_id,
        bg.charttime,
        bg.po2,
        bg.aado2,
        bg.ph,
        bg.pco2,
        COALESCE(bg.fio2, bg.fio2_chartevents) AS fio2,
        EXISTS (
            SELECT 1
            FROM invasive_ventilation
            WHERE
                invasive_ventilation.stay_id = icustays.stay_id
                AND bg.charttime >= invasive_ventilation.starttime
                AND bg.charttime <= invasive_ventilation.endtime
        ) AS is_ventilated
    FROM {{ ref('int_mimiciv_measurement__bg') }} AS bg
    INNER JOIN icustays
        ON bg.hadm_id = icustays.hadm_id
        AND bg.charttime >= icustays.intime
        AND bg.charttime < icustays.outtime
    WHERE bg.specimen = 'ART.'

),

highest_pao2 AS (

    -- Oxygenation off the ventilator with FiO2 below 50% (missing FiO2 taken as room air):
    -- the highest PaO2.
    SELECT
        stay_id,
        MAX(po2) AS pao2
    FROM stay_arterial_gases
    WHERE NOT is_ventilated AND COALESCE(fio2, 21) < 50
    GROUP BY stay_id

),

highest_aado2 AS (

    -- Oxygenation on the ventilator with FiO2 of 50% or more: the highest A-a gradient.
    SELECT
        stay_id,
        MAX(aado2) AS aado2
    FROM stay_arterial_gases
    WHERE is_ventilated AND fio2 >= 50
    GROUP BY stay_id

),

acid_base_scores AS (

    -- Points for the pH and PaCO2 pair of each gas (Knaus 1991, acid-base grid).
    SELECT
        stay_id,
        {{ apsiii_acid_base_points('ph', 'pco2') }} AS acidbase_score
    FROM stay_arterial_gases
    WHERE ph IS NOT NULL AND pco2 IS NOT NULL

),

worst_acid_base AS (

    SELECT
        stay_id,
        MAX(acidbase_score) AS acidbase_score
    FROM acid_base_scores
    GROUP BY stay_id

),

chronic_kidney_disease AS (

    -- Admissions with a stage 4-5 or end-stage chronic kidney disease diagnosis
    -- (seed apsiii_chronic_kidney_disease_icd); 0 for admissions with other diagnoses only.
    SELECT
        diagnoses.hadm_id,
        MAX(CASE WHEN ckd_codes.icd_prefix IS NOT NULL THEN 1 ELSE 0 END) AS ckd
    FROM {{ ref('stg_mimiciv_hosp__diagnoses_icd') }} AS diagnoses
    LEFT JOIN {{ ref('apsiii_chronic_kidney_disease_icd') }} AS ckd_codes
        ON diagnoses.icd_version = ckd_codes.icd_version
        AND SUBSTR(diagnoses.icd_code, 1, 4) = ckd_codes.icd_prefix
    GROUP BY diagnoses.hadm_id

),

first_day_lab AS (

    SELECT * FROM {{ ref('int_mimiciv_firstday__first_day_lab') }}

),

first_day_vitalsign AS (

    SELECT * FROM {{ ref('int_mimiciv_firstday__first_day_vitalsign') }}

),

first_day_urine_output AS (

    SELECT * FROM {{ ref('int_mimiciv_firstday__first_day_urine_output') }}

),

acute_renal_failure AS (

    -- Acute renal failure: first-day creatinine >= 1.5 mg/dL and urine output < 410 mL
    -- without chronic kidney disease (a stay without diagnoses has none).
    SELECT
        icustays.stay_id,
        CASE
            WHEN first_day_lab.creatinine_max >= 1.5
                AND first_day_urine_output.urineoutput < 410
                AND chronic_kidney_disease.ckd = 0
                THEN 1
            ELSE 0
        END AS arf
    FROM icustays
    LEFT JOIN first_day_urine_output
        ON icustays.stay_id = first_day_urine_output.stay_id
    LEFT JOIN first_day_lab
        ON icustays.stay_id = first_day_lab.stay_id
    LEFT JOIN chronic_kidney_disease
        ON icustays.hadm_id = chronic_kidney_disease.hadm_id

),

first_day_ventilation AS (

    -- Invasive ventilation that starts, ends or runs through the first day [intime, intime + 1 day].
    SELECT
        icustays.stay_id,
        MAX(CASE WHEN invasive_ventilation.stay_id IS NOT NULL THEN 1 ELSE 0 END) AS vent
    FROM icustays
    LEFT JOIN invasive_ventilation
        ON icustays.stay_id = invasive_ventilation.stay_id
        AND (
            (
                invasive_ventilation.starttime >= icustays.intime
                AND invasive_ventilation.starttime <= {{ dbt.dateadd('day', 1, 'icustays.intime') }}
            )
            OR (
                invasive_ventilation.endtime >= icustays.intime
                AND invasive_ventilation.endtime <= {{ dbt.dateadd('day', 1, 'icustays.intime') }}
            )
            OR (
                invasive_ventilation.starttime <= icustays.intime
                AND invasive_ventilation.endtime >= {{ dbt.dateadd('day', 1, 'icustays.intime') }}
            )
        )
    GROUP BY icustays.stay_id

),

cohort AS (

    -- Stays with an admission and a patient row, with the first-day extremes. Glucose
    -- extremes combine laboratory and fingerstick values.
    SELECT
        icustays.stay_id,
        first_day_vitalsign.heart_rate_min,
        first_day_vitalsign.heart_rate_max,
        first_day_vitalsign.mbp_min,
        first_day_vitalsign.mbp_max,
        first_day_vitalsign.temperature_min,
        first_day_vitalsign.temperature_max,
        first_day_vitalsign.resp_rate_min,
        first_day_vitalsign.resp_rate_max,
        highest_pao2.pao2,
        highest_aado2.aado2,
        worst_acid_base.acidbase_score,
        first_day_lab.hematocrit_min,
        first_day_lab.hematocrit_max,
        first_day_lab.wbc_min,
        first_day_lab.wbc_max,
        first_day_lab.creatinine_min,
        first_day_lab.creatinine_max,
        first_day_lab.bun_min,
        first_day_lab.bun_max,
        first_day_lab.sodium_min,
        first_day_lab.sodium_max,
        first_day_lab.albumin_min,
        first_day_lab.albumin_max,
        first_day_lab.bilirubin_total_min AS bilirubin_min,
        first_day_lab.bilirubin_total_max AS bilirubin_max,
        CASE
            WHEN first_day_lab.glucose_max IS NULL OR first_day_vitalsign.glucose_max > first_day_lab.glucose_max
                THEN first_day_vitalsign.glucose_max
            ELSE first_day_lab.glucose_max
        END AS glucose_max,
        CASE
            WHEN first_day_lab.glucose_min IS NULL OR first_day_vitalsign.glucose_min < first_day_lab.glucose_min
                THEN first_day_vitalsign.glucose_min
            ELSE first_day_lab.glucose_min
        END AS glucose_min,
        first_day_ventilation.vent,
        first_day_urine_output.urineoutput,
        first_day_gcs.gcs_motor,
        first_day_gcs.gcs_verbal,
        first_day_gcs.gcs_eyes,
        first_day_gcs.gcs_unable,
        acute_renal_failure.arf
    FROM icustays
    INNER JOIN {{ ref('stg_mimiciv_hosp__admissions') }} AS admissions
        ON icustays.hadm_id = admissions.hadm_id
    INNER JOIN {{ ref('stg_mimiciv_hosp__patients') }} AS patients
        ON icustays.subject_id = patients.subject_id
    LEFT JOIN highest_pao2
        ON icustays.stay_id = highest_pao2.stay_id
    LEFT JOIN highest_aado2
        ON icustays.stay_id = highest_aado2.stay_id
    LEFT JOIN worst_acid_base
        ON icustays.stay_id = worst_acid_base.stay_id
    LEFT JOIN acute_renal_failure
        ON icustays.stay_id = acute_renal_failure.stay_id
    LEFT JOIN first_day_ventilation
        ON icustays.stay_id = first_day_ventilation.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS first_day_gcs
        ON icustays.stay_id = first_day_gcs.stay_id
    LEFT JOIN first_day_vitalsign
        ON icustays.stay_id = first_day_vitalsign.stay_id
    LEFT JOIN first_day_urine_output
        ON icustays.stay_id = first_day_urine_output.stay_id
    LEFT JOIN first_day_lab
        ON icustays.stay_id = first_day_lab.stay_id

),

extremes AS (

    -- The lowest and the highest value of each variable, one row each, so that one
    -- points ladder serves both.
    SELECT
        stay_id, 'min' AS extreme, vent, arf,
        heart_rate_min AS heart_rate, mbp_min AS mbp, temperature_min AS temperature,
        resp_rate_min AS resp_rate, hematocrit_min AS hematocrit, wbc_min AS wbc,
        creatinine_min AS creatinine, bun_min AS bun, sodium_min AS sodium,
        albumin_min AS albumin, bilirubin_min AS bilirubin, glucose_min AS glucose
    FROM cohort
    UNION ALL
    SELECT
        stay_id, 'max' AS extreme, vent, arf,
        heart_rate_max, mbp_max, temperature_max,
        resp_rate_max, hematocrit_max, wbc_max,
        creatinine_max, bun_max, sodium_max,
        albumin_max, bilirubin_max, glucose_max
    FROM cohort

),

extreme_points AS (

    -- Points of Knaus 1991 for one value (macro apsiii_points); NULL when the value is missing.
    SELECT
        stay_id,
        extreme,
        {{ apsiii_points('heart_rate', 'heart_rate') }} AS heart_rate_points,
        {{ apsiii_points('mbp', 'mbp') }} AS mbp_points,
        {{ apsiii_points('temperature', 'temperature') }} AS temperature_points,
        {{ apsiii_points('resp_rate', 'resp_rate') }} AS resp_rate_points,
        {{ apsiii_points('hematocrit', 'hematocrit') }} AS hematocrit_points,
        {{ apsiii_points('wbc', 'wbc') }} AS wbc_points,
        {{ apsiii_points('creatinine', 'creatinine') }} AS creatinine_points,
        {{ apsiii_points('bun', 'bun') }} AS bun_points,
        {{ apsiii_points('sodium', 'sodium') }} AS sodium_points,
        {{ apsiii_points('albumin', 'albumin') }} AS albumin_points,
        {{ apsiii_points('bilirubin', 'bilirubin') }} AS bilirubin_points,
        {{ apsiii_points('glucose', 'glucose') }} AS glucose_points
    FROM extremes

),

min_points AS (

    SELECT * FROM extreme_points WHERE extreme = 'min'

),

max_points AS (

    SELECT * FROM extreme_points WHERE extreme = 'max'

),

component_scores AS (

    -- Each variable scores the extreme (first-day minimum or maximum) farther from its
    -- normal midpoint; on a tie, the higher points. BUN and bilirubin score their highest
    -- value, and so does creatinine with acute renal failure (macro apsiii_scored_extreme).
    SELECT
        cohort.*,
        {%- for variable in ['heart_rate', 'mbp', 'temperature', 'resp_rate', 'hematocrit', 'wbc',
                             'creatinine', 'bun', 'sodium', 'albumin', 'bilirubin', 'glucose'] %}
        {{ apsiii_scored_extreme(variable, variable ~ '_min', variable ~ '_max',
                                 'min_points.' ~ variable ~ '_points', 'max_points.' ~ variable ~ '_points') }}
            AS {{ variable }}_points,
        {%- endfor %}
        {{ apsiii_urine_output_points('urineoutput') }} AS uo_score,
        {{ apsiii_gcs_points() }} AS gcs_score,
        {{ apsiii_oxygenation_points('pao2', 'aado2') }} AS pao2_aado2_score
    FROM cohort
    LEFT JOIN min_points
        ON cohort.stay_id = min_points.stay_id
    LEFT JOIN max_points
        ON cohort.stay_id = max_points.stay_id

),

total_scores AS (

    SELECT
        component_scores.*,
        COALESCE(heart_rate_points, 0) + COALESCE(mbp_points, 0) + COALESCE(temperature_points, 0)
        + COALESCE(resp_rate_points, 0) + COALESCE(pao2_aado2_score, 0) + COALESCE(hematocrit_points, 0)
        + COALESCE(wbc_points, 0) + COALESCE(creatinine_points, 0) + COALESCE(uo_score, 0)
        + COALESCE(bun_points, 0) + COALESCE(sodium_points, 0) + COALESCE(albumin_points, 0)
        + COALESCE(bilirubin_points, 0) + COALESCE(glucose_points, 0) + COALESCE(acidbase_score, 0)
        + COALESCE(gcs_score, 0) AS apsiii
    FROM component_scores

),

final AS (

    -- Every stay; stays without an admission or patient row have NULL scores.
    SELECT
        icustays.subject_id,
        icustays.hadm_id,
        icustays.stay_id,
        total_scores.apsiii,
        -- Predicted hospital mortality as in mimic-code: logit = -4.4360 + 0.04726 * score.
        1 / (1 + EXP(-(-4.4360 + 0.04726 * total_scores.apsiii))) AS apsiii_prob,
        total_scores.heart_rate_points AS hr_score,
        total_scores.mbp_points AS mbp_score,
        total_scores.temperature_points AS temp_score,
        total_scores.resp_rate_points AS resp_rate_score,
        total_scores.pao2_aado2_score,
        total_scores.hematocrit_points AS hematocrit_score,
        total_scores.wbc_points AS wbc_score,
        total_scores.creatinine_points AS creatinine_score,
        total_scores.uo_score,
        total_scores.bun_points AS bun_score,
        total_scores.sodium_points AS sodium_score,
        total_scores.albumin_points AS albumin_score,
        total_scores.bilirubin_points AS bilirubin_score,
        total_scores.glucose_points AS glucose_score,
        total_scores.acidbase_score,
        total_scores.gcs_score
    FROM icustays
    LEFT JOIN total_scores
        ON icustays.stay_id = total_scores.stay_id

)

SELECT * FROM final
