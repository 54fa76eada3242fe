{#-
  The first-day values APS III scores (Knaus WA et al., Chest 1991;100:1619-36), one row
  per ICU stay with an admission and a patient row, as mimic-code's
  mimic-iv/concepts/score/apsiii.sql finds them (m4-infra snapshot): the first-day
  extremes of vital signs and labs (glucose: the more extreme of lab and fingerstick),
  urine output and GCS components; invasive ventilation that starts, ends or runs
  through [intime, intime + 1 day] (vent); acute renal failure (arf: creatinine >= 1.5
  mg/dL, urine < 410 mL, no CKD stage 4-6 code of seed apsiii_chronic_kidney_disease_icd);
  and from the admission's arterial gases taken from intime to `gases_until` (end
  exclusive): the highest PaO2 off invasive ventilation with FiO2 < 50 % (unknown FiO2
  counts as 21 %), the highest A-aDO2 on it with FiO2 >= 50 % (lab FiO2, else charted),
  and the worst acid-base points. One query, shared by the apsiii concept and the
  apsiii-24h reference, which then score it with the apsiii_* point macros.

  gases_until: SQL expression over `icustays` (intime, outtime): mimic-code takes gases
  of the whole stay (icustays.outtime); M4Bench only those of the first day.
-#}
{% macro apsiii_first_day_values(gases_until='icustays.outtime') %}
WITH icustays AS (

    SELECT * FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

invasive_ventilation AS (

    {{ invasive_ventilation_episodes() }}

),

stay_arterial_gases AS (

    -- Arterial gases of the admission taken from intime to gases_until (end exclusive),
    -- flagged when taken during invasive ventilation of the stay (episode ends inclusive).
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
                AND {{ during_invasive_ventilation('bg.charttime', 'invasive_ventilation') }}
        ) AS is_ventilated
    FROM {{ ref('int_mimiciv_measurement__bg') }} AS bg
    INNER JOIN icustays
        ON bg.hadm_id = icustays.hadm_id
        AND bg.charttime >= icustays.intime
        AND bg.charttime < {{ gases_until }}
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

)

SELECT * FROM cohort
{% endmacro %}
