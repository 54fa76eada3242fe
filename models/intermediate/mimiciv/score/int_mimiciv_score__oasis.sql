-- Oxford Acute Severity of Illness Score (OASIS) over the first day of each ICU stay.
-- Johnson AEW, Kramer AA, Clifford GD. A new severity of illness scale using a subset of
-- Acute Physiology And Chronic Health Evaluation data elements shows comparable predictive
-- accuracy. Crit Care Med. 2013;41(7):1711-1718.
-- Follows mimic-code mimic-iv/concepts/score/oasis.sql as vendored by m4-infra 0.5.9.
{{ config(alias='oasis') }}

WITH icustays AS (

    SELECT * FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

admissions AS (

    SELECT * FROM {{ ref('stg_mimiciv_hosp__admissions') }}

),

surgical_stays AS (

    -- Surgical when any service that started before intime + 1 day is surgical
    -- (name contains 'surg', or orthopaedics); 0 for stays without such a service.
    SELECT
        icustays.stay_id,
        MAX(
            CASE
                WHEN LOWER(services.curr_service) LIKE '%surg%' THEN 1
                WHEN services.curr_service = 'ORTHO' THEN 1
                ELSE 0
            END
        ) AS surgical
    FROM icustays
    LEFT JOIN {{ ref('stg_mimiciv_hosp__services') }} AS services
        ON icustays.hadm_id = services.hadm_id
        AND services.transfertime < {{ dbt.dateadd('day', 1, 'icustays.intime') }}
    GROUP BY icustays.stay_id

),

first_day_ventilation AS (

    -- Invasive ventilation that starts, ends or runs through the first day [intime, intime + 1 day].
    SELECT
        icustays.stay_id,
        MAX(CASE WHEN ventilation.stay_id IS NOT NULL THEN 1 ELSE 0 END) AS vent
    FROM icustays
    LEFT JOIN {{ ref('int_mimiciv_treatment__ventilation') }} AS ventilation
        ON icustays.stay_id = ventilation.stay_id
        AND ventilation.ventilation_status = 'InvasiveVent'
        AND (
            (
                ventilation.starttime >= icustays.intime
                AND ventilation.starttime <= {{ dbt.dateadd('day', 1, 'icustays.intime') }}
            )
            OR (
                ventilation.endtime >= icustays.intime
                AND ventilation.endtime <= {{ dbt.dateadd('day', 1, 'icustays.intime') }}
            )
            OR (
                ventilation.starttime <= icustays.intime
                AND ventilation.endtime >= {{ dbt.dateadd('day', 1, 'icustays.intime') }}
            )
        )
    GROUP BY icustays.stay_id

),

cohort AS (

    -- Stays with an admission and a patient row, with the first-day values.
    SELECT
        icustays.subject_id,
        icustays.hadm_id,
        icustays.stay_id,
        -- Minutes from hospital admission to ICU admission.
        {{ dbt.datediff('admissions.admittime', 'icustays.intime', 'microsecond') }} / 60000000.0 AS preiculos,
        age.age,
        first_day_gcs.gcs_min,
        first_day_vitalsign.heart_rate_max,
        first_day_vitalsign.heart_rate_min,
        first_day_vitalsign.mbp_max,
        first_day_vitalsign.mbp_min,
        first_day_vitalsign.resp_rate_max,
        first_day_vitalsign.resp_rate_min,
        first_day_vitalsign.temperature_max,
        first_day_vitalsign.temperature_min,
        first_day_ventilation.vent AS mechvent,
        first_day_urine_output.urineoutput,
        CASE
            WHEN admissions.admission_type = 'ELECTIVE' AND surgical_stays.surgical = 1 THEN 1
            WHEN admissions.admission_type IS NULL OR surgical_stays.surgical IS NULL THEN NULL
            ELSE 0
        END AS electivesurgery
    FROM icustays
    INNER JOIN admissions
        ON icustays.hadm_id = admissions.hadm_id
    INNER JOIN {{ ref('stg_mimiciv_hosp__patients') }} AS patients
        ON icustays.subject_id = patients.subject_id
    LEFT JOIN {{ ref('int_mimiciv_demographics__age') }} AS age
        ON icustays.hadm_id = age.hadm_id
    LEFT JOIN surgical_stays
        ON icustays.stay_id = surgical_stays.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS first_day_gcs
        ON icustays.stay_id = first_day_gcs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS first_day_vitalsign
        ON icustays.stay_id = first_day_vitalsign.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS first_day_urine_output
        ON icustays.stay_id = first_day_urine_output.stay_id
    LEFT JOIN first_day_ventilation
        ON icustays.stay_id = first_day_ventilation.stay_id

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
