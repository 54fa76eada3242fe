-- Acute Physiology Score III (APS III, the physiology part of APACHE III) over the first
-- day of each ICU stay.
-- Knaus WA, Wagner DP, Draper EA, et al. The APACHE III prognostic system. Risk prediction of
-- hospital mortality for critically ill hospitalized adults. Chest. 1991;100(6):1619-1636.
-- Follows mimic-code mimic-iv/concepts/score/apsiii.sql as vendored by m4-infra 0.5.9.
{{ config(alias='apsiii') }}

WITH icustays AS (

    SELECT * FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

cohort AS (

    -- Stays with an admission and a patient row, with the first-day extremes (macro
    -- apsiii_first_day_values, shared with ref_apsiii_24h). Arterial gases of the whole
    -- stay [intime, outtime) count, not only the first day's, as in mimic-code.
    {{ apsiii_first_day_values(gases_until='icustays.outtime') }}

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
