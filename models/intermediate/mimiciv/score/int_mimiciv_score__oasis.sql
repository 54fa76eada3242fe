-- Oxford Acute Severity of Illness Score (OASIS) over the first day of each ICU stay.
-- Johnson AEW, Kramer AA, Clifford GD. A new severity of illness scale using a subset of
-- Acute Physiology And Chronic Health Evaluation data elements shows comparable predictive
-- accuracy. Crit Care Med. 2013;41(7):1711-1718.
-- Follows mimic-code mimic-iv/concepts/score/oasis.sql as vendored by m4-infra 0.5.9.
{{ config(alias='oasis') }}

WITH cohort AS (

    -- Stays with an admission and a patient row, with the first-day values (macro
    -- oasis_first_day_values, shared with ref_oasis_24h).
    {{ oasis_first_day_values() }}

),

component_scores AS (

    -- Points of Johnson 2013, table 2; a component without data is NULL (counts 0 in the
    -- total). Next to each score, the value that earned it (the midpoint of the day's
    -- minimum and maximum when neither scored).
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        preiculos,
        {{ oasis_points('preiculos') }} AS preiculos_score,
        age,
        {{ oasis_points('age') }} AS age_score,
        gcs_min AS gcs,
        {{ oasis_points('gcs') }} AS gcs_score,
        CASE
            WHEN heart_rate_max IS NULL THEN NULL
            WHEN heart_rate_max > 125 THEN heart_rate_max
            WHEN heart_rate_min < 33 THEN heart_rate_min
            WHEN heart_rate_max >= 107 AND heart_rate_max <= 125 THEN heart_rate_max
            WHEN heart_rate_max >= 89 AND heart_rate_max <= 106 THEN heart_rate_max
            ELSE (heart_rate_min + heart_rate_max) / 2
        END AS heartrate,
        {{ oasis_points('heart_rate') }} AS heart_rate_score,
        CASE
            WHEN mbp_min IS NULL THEN NULL
            WHEN mbp_min < 20.65 THEN mbp_min
            WHEN mbp_min < 51 THEN mbp_min
            WHEN mbp_max > 143.44 THEN mbp_max
            WHEN mbp_min >= 51 AND mbp_min < 61.33 THEN mbp_min
            ELSE (mbp_min + mbp_max) / 2
        END AS meanbp,
        {{ oasis_points('mbp') }} AS mbp_score,
        CASE
            WHEN resp_rate_min IS NULL THEN NULL
            WHEN resp_rate_min < 6 THEN resp_rate_min
            WHEN resp_rate_max > 44 THEN resp_rate_max
            WHEN resp_rate_max > 30 THEN resp_rate_max
            WHEN resp_rate_max > 22 THEN resp_rate_max
            WHEN resp_rate_min < 13 THEN resp_rate_min
            ELSE (resp_rate_min + resp_rate_max) / 2
        END AS resprate,
        {{ oasis_points('resp_rate') }} AS resp_rate_score,
        CASE
            WHEN temperature_max IS NULL THEN NULL
            WHEN temperature_max > 39.88 THEN temperature_max
            WHEN temperature_min >= 33.22 AND temperature_min <= 35.93 THEN temperature_min
            WHEN temperature_max >= 33.22 AND temperature_max <= 35.93 THEN temperature_max
            WHEN temperature_min < 33.22 THEN temperature_min
            WHEN temperature_min > 35.93 AND temperature_min <= 36.39 THEN temperature_min
            WHEN temperature_max >= 36.89 AND temperature_max <= 39.88 THEN temperature_max
            ELSE (temperature_min + temperature_max) / 2
        END AS temp,
        {{ oasis_points('temperature') }} AS temp_score,
        urineoutput,
        {{ oasis_points('urineoutput') }} AS urineoutput_score,
        mechvent,
        {{ oasis_points('mechvent') }} AS mechvent_score,
        electivesurgery,
        {{ oasis_points('electivesurgery') }} AS electivesurgery_score
    FROM cohort

),

total_scores AS (

    SELECT
        component_scores.*,
        COALESCE(age_score, 0) + COALESCE(preiculos_score, 0) + COALESCE(gcs_score, 0)
        + COALESCE(heart_rate_score, 0) + COALESCE(mbp_score, 0) + COALESCE(resp_rate_score, 0)
        + COALESCE(temp_score, 0) + COALESCE(urineoutput_score, 0) + COALESCE(mechvent_score, 0)
        + COALESCE(electivesurgery_score, 0) AS oasis
    FROM component_scores

),

final AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        oasis,
        -- Predicted in-hospital mortality, Johnson 2013: logit = -6.1746 + 0.1275 * score.
        1 / (1 + EXP(-(-6.1746 + 0.1275 * oasis))) AS oasis_prob,
        age,
        age_score,
        preiculos,
        preiculos_score,
        gcs,
        gcs_score,
        heartrate,
        heart_rate_score,
        meanbp,
        mbp_score,
        resprate,
        resp_rate_score,
        temp,
        temp_score,
        urineoutput,
        urineoutput_score,
        mechvent,
        mechvent_score,
        electivesurgery,
        electivesurgery_score
    FROM total_scores

)

SELECT * FROM final
