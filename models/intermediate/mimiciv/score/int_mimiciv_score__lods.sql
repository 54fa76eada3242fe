-- Logistic Organ Dysfunction System (LODS) over the first day of each ICU stay.
-- Le Gall JR, Klar J, Lemeshow S, et al. The Logistic Organ Dysfunction system. A new way to
-- assess organ dysfunction in the intensive care unit. JAMA. 1996;276(10):802-810.
-- Follows mimic-code mimic-iv/concepts/score/lods.sql as vendored by m4-infra 0.5.9.
{{ config(alias='lods') }}

WITH icustays AS (

    SELECT * FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_lab AS (

    SELECT * FROM {{ ref('int_mimiciv_firstday__first_day_lab') }}

),

cpap_periods AS (

    -- CPAP or BiPAP mask charted as the O2 delivery device in [intime, intime + 1 day]: the
    -- period from 1 hour before the first such row to 4 hours after the last (not clipped).
    SELECT
        icustays.stay_id,
        MIN({{ dbt.dateadd('hour', -1, 'chartevents.charttime') }}) AS starttime,
        MAX({{ dbt.dateadd('hour', 4, 'chartevents.charttime') }}) AS endtime
    FROM icustays
    INNER JOIN {{ ref('int_mimiciv_events__chartevents_used') }} AS chartevents
        ON icustays.stay_id = chartevents.stay_id
        AND chartevents.charttime >= icustays.intime
        AND chartevents.charttime <= {{ dbt.dateadd('day', 1, 'icustays.intime') }}
    WHERE
        chartevents.itemid = 226732
        AND (LOWER(chartevents.value) LIKE '%cpap%' OR LOWER(chartevents.value) LIKE '%bipap mask%')
    GROUP BY icustays.stay_id

),

invasive_ventilation AS (

    {{ invasive_ventilation_episodes() }}

),

stay_gases AS (

    -- Blood gases of the admission taken during the stay [intime, outtime), of any specimen
    -- type (mimic-code does not require arterial here), flagged when taken during invasive
    -- ventilation or a CPAP period of the stay.
    SELECT
        icustays.stay_id,
        bg.charttime,
        bg.pao2fio2ratio,
        invasive_ventilation.stay_id IS NOT NULL AS is_ventilated,
        cpap_periods.stay_id IS NOT NULL AS is_on_cpap
    FROM {{ ref('int_mimiciv_measurement__bg') }} AS bg
    INNER JOIN icustays
        ON bg.hadm_id = icustays.hadm_id
        AND bg.charttime >= icustays.intime
        AND bg.charttime < icustays.outtime
    LEFT JOIN invasive_ventilation
        ON icustays.stay_id = invasive_ventilation.stay_id
        AND {{ during_invasive_ventilation('bg.charttime', 'invasive_ventilation') }}
    LEFT JOIN cpap_periods
        ON icustays.stay_id = cpap_periods.stay_id
        AND bg.charttime >= cpap_periods.starttime
        AND bg.charttime <= cpap_periods.endtime

),

ventilated_pao2fio2 AS (

    SELECT
        stay_id,
        MIN(pao2fio2ratio) AS pao2fio2_vent_min
    FROM stay_gases
    WHERE is_ventilated OR is_on_cpap
    GROUP BY stay_id

),

cohort AS (

    -- Stays with an admission and a patient row, with the first-day values.
    SELECT
        icustays.stay_id,
        first_day_gcs.gcs_min,
        first_day_vitalsign.heart_rate_max,
        first_day_vitalsign.heart_rate_min,
        first_day_vitalsign.sbp_max,
        first_day_vitalsign.sbp_min,
        ventilated_pao2fio2.pao2fio2_vent_min,
        first_day_lab.bun_max,
        first_day_lab.wbc_max,
        first_day_lab.wbc_min,
        first_day_lab.bilirubin_total_max AS bilirubin_max,
        first_day_lab.creatinine_max,
        first_day_lab.pt_min,
        first_day_lab.pt_max,
        first_day_lab.platelets_min AS platelet_min,
        first_day_urine_output.urineoutput
    FROM icustays
    INNER JOIN {{ ref('stg_mimiciv_hosp__admissions') }} AS admissions
        ON icustays.hadm_id = admissions.hadm_id
    INNER JOIN {{ ref('stg_mimiciv_hosp__patients') }} AS patients
        ON icustays.subject_id = patients.subject_id
    LEFT JOIN ventilated_pao2fio2
        ON icustays.stay_id = ventilated_pao2fio2.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS first_day_gcs
        ON icustays.stay_id = first_day_gcs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS first_day_vitalsign
        ON icustays.stay_id = first_day_vitalsign.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS first_day_urine_output
        ON icustays.stay_id = first_day_urine_output.stay_id
    LEFT JOIN first_day_lab
        ON icustays.stay_id = first_day_lab.stay_id

),

organ_scores AS (

    -- Points of Le Gall 1996, table 2, per organ system.
    SELECT
        stay_id,
        CASE
            WHEN gcs_min IS NULL THEN NULL
            WHEN gcs_min < 3 THEN NULL
            WHEN gcs_min <= 5 THEN 5
            WHEN gcs_min <= 8 THEN 3
            WHEN gcs_min <= 13 THEN 1
            ELSE 0
        END AS neurologic,
        CASE
            -- Scored when heart rate or systolic pressure is known.
            WHEN heart_rate_max IS NULL AND sbp_min IS NULL THEN NULL
            WHEN heart_rate_min < 30 THEN 5
            WHEN sbp_min < 40 THEN 5
            WHEN sbp_min < 70 THEN 3
            WHEN sbp_max >= 270 THEN 3
            WHEN heart_rate_max >= 140 THEN 1
            WHEN sbp_max >= 240 THEN 1
            WHEN sbp_min < 90 THEN 1
            ELSE 0
        END AS cardiovascular,
        CASE
            -- Scored only when BUN, urine output and creatinine are all known.
            WHEN bun_max IS NULL OR urineoutput IS NULL OR creatinine_max IS NULL THEN NULL
            WHEN urineoutput < 500.0 THEN 5
            WHEN bun_max >= 56.0 THEN 5
            WHEN creatinine_max >= 1.60 THEN 3
            WHEN urineoutput < 750.0 THEN 3
            WHEN bun_max >= 28.0 THEN 3
            WHEN urineoutput >= 10000.0 THEN 3
            WHEN creatinine_max >= 1.20 THEN 1
            WHEN bun_max >= 17.0 THEN 1
            WHEN bun_max >= 7.50 THEN 1
            ELSE 0
        END AS renal,
        CASE
            -- Not ventilated nor on CPAP (no ratio): 0 points.
            WHEN pao2fio2_vent_min IS NULL THEN 0
            WHEN pao2fio2_vent_min >= 150 THEN 1
            WHEN pao2fio2_vent_min < 150 THEN 3
        END AS pulmonary,
        CASE
            WHEN wbc_max IS NULL AND platelet_min IS NULL THEN NULL
            WHEN wbc_min < 1.0 THEN 3
            WHEN wbc_min < 2.5 THEN 1
            WHEN platelet_min < 50.0 THEN 1
            WHEN wbc_max >= 50.0 THEN 1
            ELSE 0
        END AS hematologic,
        CASE
            -- Prothrombin time more than 3 s above, or below 25% of, a standard 12 s.
            WHEN pt_max IS NULL AND bilirubin_max IS NULL THEN NULL
            WHEN bilirubin_max >= 2.0 THEN 1
            WHEN pt_max > (12 + 3) THEN 1
            WHEN pt_min < (12 * 0.25) THEN 1
            ELSE 0
        END AS hepatic
    FROM cohort

),

final AS (

    -- Every stay; a missing organ counts 0 in the total (stays without an admission or
    -- patient row get NULL organ scores and a total of 0).
    SELECT
        icustays.subject_id,
        icustays.hadm_id,
        icustays.stay_id,
        COALESCE(organ_scores.neurologic, 0) + COALESCE(organ_scores.cardiovascular, 0)
        + COALESCE(organ_scores.renal, 0) + COALESCE(organ_scores.pulmonary, 0)
        + COALESCE(organ_scores.hematologic, 0) + COALESCE(organ_scores.hepatic, 0) AS lods,
        organ_scores.neurologic,
        organ_scores.cardiovascular,
        organ_scores.renal,
        organ_scores.pulmonary,
        organ_scores.hematologic,
        organ_scores.hepatic
    FROM icustays
    LEFT JOIN organ_scores
        ON icustays.stay_id = organ_scores.stay_id

)

SELECT * FROM final
