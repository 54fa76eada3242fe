{#-
  The first-day values SAPS II scores (Le Gall JR et al., JAMA 1993;270:2957-63), one row
  per ICU stay with an admission row, as mimic-code's mimic-iv/concepts/score/sapsii.sql
  finds them (m4-infra snapshot): the window (intime, intime + 24 h]; vital signs and labs
  of the patient (matched on subject_id, any stay or admission) in it; the lowest
  PaO2/FiO2 of arterial gases taken during invasive ventilation of the stay or during a
  CPAP/BiPAP period of any of the patient's stays; urine output and GCS of the stay;
  AIDS, haematologic malignancy and metastatic cancer from the admission's ICD codes; and
  the admission type from the first service. One query, shared by the sapsii concept and
  the sapsii-24h reference, which then score it with sapsii_component_scores. Columns:
  subject_id, hadm_id, stay_id, starttime, endtime and those sapsii_component_scores
  expects.

  The defaults are mimic-code's; the sapsii-24h reference's variants read them otherwise
  (docs/explain.md). start_hours: where the window opens relative to intime (0; -6 opens it 6
  hours before, as mimic-code's first_day_* tables). gases: 'ventilated' (only gases taken during
  invasive ventilation or CPAP score PaO2/FiO2, Le Gall 1993) or 'any' (every arterial gas).
-#}
{% macro sapsii_first_day_values(start_hours=0, gases='ventilated') %}
WITH icustays AS (

    SELECT * FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_windows AS (

    -- The scoring window of each stay: (intime + start_hours, intime + 24 hours]
    -- (mimic-code: (intime, intime + 24 hours]).
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        {% if start_hours == 0 -%}
        intime
        {%- else -%}
        {{ dbt.dateadd('hour', start_hours, 'intime') }}
        {%- endif %} AS starttime,
        {{ dbt.dateadd('hour', 24, 'intime') }} AS endtime
    FROM icustays

),

cpap_periods AS (

    -- CPAP or BiPAP charted as the O2 delivery device in the first day: the period from
    -- 1 hour before the first such row to 4 hours after the last, clipped to the window.
    SELECT
        first_day_windows.subject_id,
        first_day_windows.stay_id,
        GREATEST(
            MIN({{ dbt.dateadd('hour', -1, 'chartevents.charttime') }}), first_day_windows.starttime
        ) AS starttime,
        LEAST(
            MAX({{ dbt.dateadd('hour', 4, 'chartevents.charttime') }}), first_day_windows.endtime
        ) AS endtime
    FROM first_day_windows
    INNER JOIN {{ ref('int_mimiciv_events__chartevents_used') }} AS chartevents
        ON first_day_windows.stay_id = chartevents.stay_id
        AND chartevents.charttime > first_day_windows.starttime
        AND chartevents.charttime <= first_day_windows.endtime
    WHERE
        chartevents.itemid = 226732
        AND (LOWER(chartevents.value) LIKE '%cpap mask%' OR LOWER(chartevents.value) LIKE '%bipap%')
    GROUP BY
        first_day_windows.subject_id,
        first_day_windows.stay_id,
        first_day_windows.starttime,
        first_day_windows.endtime

),

first_services AS (

    -- The admission's first service (earliest transfertime); surgical when it contains 'surg'.
    -- Two services at the earliest transfertime: a surgical one wins (then the service name;
    -- only the surgical flag is used, so remaining ties are indistinguishable).
    SELECT
        admissions.hadm_id,
        CASE WHEN LOWER(services.curr_service) LIKE '%surg%' THEN 1 ELSE 0 END AS surgical,
        ROW_NUMBER() OVER (
            PARTITION BY admissions.hadm_id
            ORDER BY
                services.transfertime NULLS FIRST,
                CASE WHEN LOWER(services.curr_service) LIKE '%surg%' THEN 0 ELSE 1 END,
                services.curr_service
        ) AS service_order
    FROM {{ ref('stg_mimiciv_hosp__admissions') }} AS admissions
    LEFT JOIN {{ ref('stg_mimiciv_hosp__services') }} AS services
        ON admissions.hadm_id = services.hadm_id

),

comorbidities AS (

    -- AIDS, haematologic malignancy and metastatic cancer flags from the admission's
    -- diagnoses; code ranges in seed sapsii_comorbidity_icd_ranges.
    SELECT
        diagnoses.hadm_id,
        MAX(CASE WHEN icd_ranges.comorbidity = 'aids' THEN 1 ELSE 0 END) AS aids,
        MAX(CASE WHEN icd_ranges.comorbidity = 'hem' THEN 1 ELSE 0 END) AS hem,
        MAX(CASE WHEN icd_ranges.comorbidity = 'mets' THEN 1 ELSE 0 END) AS mets
    FROM {{ ref('stg_mimiciv_hosp__diagnoses_icd') }} AS diagnoses
    LEFT JOIN {{ ref('sapsii_comorbidity_icd_ranges') }} AS icd_ranges
        ON diagnoses.icd_version = icd_ranges.icd_version
        AND SUBSTR(diagnoses.icd_code, 1, icd_ranges.prefix_length)
        BETWEEN icd_ranges.code_from AND icd_ranges.code_to
    GROUP BY diagnoses.hadm_id

),

invasive_ventilation AS (

    {{ invasive_ventilation_episodes() }}

),

first_day_arterial_gases AS (

    -- Arterial gases of the patient in the window, flagged when taken during invasive
    -- ventilation of this stay or during a CPAP period of any of the patient's stays.
    SELECT
        first_day_windows.stay_id,
        bg.charttime,
        bg.pao2fio2ratio,
        invasive_ventilation.stay_id IS NOT NULL AS is_ventilated,
        cpap_periods.subject_id IS NOT NULL AS is_on_cpap
    FROM first_day_windows
    INNER JOIN {{ ref('int_mimiciv_measurement__bg') }} AS bg
        ON first_day_windows.subject_id = bg.subject_id
        AND bg.specimen = 'ART.'
        AND bg.charttime > first_day_windows.starttime
        AND bg.charttime <= first_day_windows.endtime
    LEFT JOIN invasive_ventilation
        ON first_day_windows.stay_id = invasive_ventilation.stay_id
        AND {{ during_invasive_ventilation('bg.charttime', 'invasive_ventilation', start_inclusive=false) }}
    LEFT JOIN cpap_periods
        ON bg.subject_id = cpap_periods.subject_id
        AND bg.charttime > cpap_periods.starttime
        AND bg.charttime <= cpap_periods.endtime

),

ventilated_pao2fio2 AS (

    -- Only ventilated or CPAP gases score; the others leave the component NULL.
    SELECT
        stay_id,
        MIN(pao2fio2ratio) AS pao2fio2_vent_min
    FROM first_day_arterial_gases
    {%- if gases == 'ventilated' %}
    WHERE is_ventilated OR is_on_cpap
    {%- endif %}
    GROUP BY stay_id

),

first_day_gcs AS (

    SELECT
        first_day_windows.stay_id,
        MIN(gcs.gcs) AS mingcs
    FROM first_day_windows
    LEFT JOIN {{ ref('int_mimiciv_measurement__gcs') }} AS gcs
        ON first_day_windows.stay_id = gcs.stay_id
        AND gcs.charttime > first_day_windows.starttime
        AND gcs.charttime <= first_day_windows.endtime
    GROUP BY first_day_windows.stay_id

),

first_day_vitals AS (

    -- Vital signs are matched on subject_id, not stay_id, as in mimic-code.
    SELECT
        first_day_windows.stay_id,
        MIN(vitalsign.heart_rate) AS heartrate_min,
        MAX(vitalsign.heart_rate) AS heartrate_max,
        MIN(vitalsign.sbp) AS sysbp_min,
        MAX(vitalsign.sbp) AS sysbp_max,
        MIN(vitalsign.temperature) AS tempc_min,
        MAX(vitalsign.temperature) AS tempc_max
    FROM first_day_windows
    LEFT JOIN {{ ref('int_mimiciv_measurement__vitalsign') }} AS vitalsign
        ON first_day_windows.subject_id = vitalsign.subject_id
        AND vitalsign.charttime > first_day_windows.starttime
        AND vitalsign.charttime <= first_day_windows.endtime
    GROUP BY first_day_windows.stay_id

),

first_day_urine_output AS (

    SELECT
        first_day_windows.stay_id,
        SUM(urine_output.urineoutput) AS urineoutput
    FROM first_day_windows
    LEFT JOIN {{ ref('int_mimiciv_measurement__urine_output') }} AS urine_output
        ON first_day_windows.stay_id = urine_output.stay_id
        AND urine_output.charttime > first_day_windows.starttime
        AND urine_output.charttime <= first_day_windows.endtime
    GROUP BY first_day_windows.stay_id

),

first_day_chemistry AS (

    SELECT
        first_day_windows.stay_id,
        MIN(chemistry.bun) AS bun_min,
        MAX(chemistry.bun) AS bun_max,
        MIN(chemistry.potassium) AS potassium_min,
        MAX(chemistry.potassium) AS potassium_max,
        MIN(chemistry.sodium) AS sodium_min,
        MAX(chemistry.sodium) AS sodium_max,
        MIN(chemistry.bicarbonate) AS bicarbonate_min,
        MAX(chemistry.bicarbonate) AS bicarbonate_max
    FROM first_day_windows
    LEFT JOIN {{ ref('int_mimiciv_measurement__chemistry') }} AS chemistry
        ON first_day_windows.subject_id = chemistry.subject_id
        AND chemistry.charttime > first_day_windows.starttime
        AND chemistry.charttime <= first_day_windows.endtime
    GROUP BY first_day_windows.stay_id

),

first_day_blood_count AS (

    SELECT
        first_day_windows.stay_id,
        MIN(complete_blood_count.wbc) AS wbc_min,
        MAX(complete_blood_count.wbc) AS wbc_max
    FROM first_day_windows
    LEFT JOIN {{ ref('int_mimiciv_measurement__complete_blood_count') }} AS complete_blood_count
        ON first_day_windows.subject_id = complete_blood_count.subject_id
        AND complete_blood_count.charttime > first_day_windows.starttime
        AND complete_blood_count.charttime <= first_day_windows.endtime
    GROUP BY first_day_windows.stay_id

),

first_day_bilirubin AS (

    SELECT
        first_day_windows.stay_id,
        MIN(enzyme.bilirubin_total) AS bilirubin_min,
        MAX(enzyme.bilirubin_total) AS bilirubin_max
    FROM first_day_windows
    LEFT JOIN {{ ref('int_mimiciv_measurement__enzyme') }} AS enzyme
        ON first_day_windows.subject_id = enzyme.subject_id
        AND enzyme.charttime > first_day_windows.starttime
        AND enzyme.charttime <= first_day_windows.endtime
    GROUP BY first_day_windows.stay_id

),

cohort AS (

    -- Stays with an admission row, with every component's first-day extreme.
    SELECT
        icustays.subject_id,
        icustays.hadm_id,
        icustays.stay_id,
        first_day_windows.starttime,
        first_day_windows.endtime,
        age.age,
        first_day_vitals.heartrate_max,
        first_day_vitals.heartrate_min,
        first_day_vitals.sysbp_max,
        first_day_vitals.sysbp_min,
        first_day_vitals.tempc_max,
        first_day_vitals.tempc_min,
        ventilated_pao2fio2.pao2fio2_vent_min,
        first_day_urine_output.urineoutput,
        first_day_chemistry.bun_max,
        first_day_blood_count.wbc_min,
        first_day_blood_count.wbc_max,
        first_day_chemistry.potassium_min,
        first_day_chemistry.potassium_max,
        first_day_chemistry.sodium_min,
        first_day_chemistry.sodium_max,
        first_day_chemistry.bicarbonate_min,
        first_day_chemistry.bicarbonate_max,
        first_day_bilirubin.bilirubin_max,
        first_day_gcs.mingcs,
        comorbidities.aids,
        comorbidities.hem,
        comorbidities.mets,
        CASE
            WHEN admissions.admission_type = 'ELECTIVE' AND first_services.surgical = 1 THEN 'ScheduledSurgical'
            WHEN admissions.admission_type != 'ELECTIVE' AND first_services.surgical = 1 THEN 'UnscheduledSurgical'
            ELSE 'Medical'
        END AS admissiontype
    FROM icustays
    INNER JOIN {{ ref('stg_mimiciv_hosp__admissions') }} AS admissions
        ON icustays.hadm_id = admissions.hadm_id
    LEFT JOIN {{ ref('int_mimiciv_demographics__age') }} AS age
        ON icustays.hadm_id = age.hadm_id
    INNER JOIN first_day_windows
        ON icustays.stay_id = first_day_windows.stay_id
    LEFT JOIN ventilated_pao2fio2
        ON icustays.stay_id = ventilated_pao2fio2.stay_id
    LEFT JOIN first_services
        ON admissions.hadm_id = first_services.hadm_id AND first_services.service_order = 1
    LEFT JOIN comorbidities
        ON icustays.hadm_id = comorbidities.hadm_id
    LEFT JOIN first_day_gcs
        ON icustays.stay_id = first_day_gcs.stay_id
    LEFT JOIN first_day_vitals
        ON icustays.stay_id = first_day_vitals.stay_id
    LEFT JOIN first_day_urine_output
        ON icustays.stay_id = first_day_urine_output.stay_id
    LEFT JOIN first_day_chemistry
        ON icustays.stay_id = first_day_chemistry.stay_id
    LEFT JOIN first_day_blood_count
        ON icustays.stay_id = first_day_blood_count.stay_id
    LEFT JOIN first_day_bilirubin
        ON icustays.stay_id = first_day_bilirubin.stay_id

)

SELECT * FROM cohort
{% endmacro %}
