{#-
  The first-day values OASIS scores (Johnson AEW et al., Crit Care Med 2013;41:1711-18),
  one row per ICU stay with an admission and a patient row, as mimic-code's
  mimic-iv/concepts/score/oasis.sql finds them (m4-infra snapshot): minutes from hospital
  to ICU admission (preiculos), age, the first-day GCS, vital-sign extremes and urine
  output, invasive ventilation that starts, ends or runs through [intime, intime + 1 day]
  (mechvent), and elective surgery (an ELECTIVE admission with a surgical service, name
  containing 'surg' or ORTHO, started before intime + 1 day). One query, shared by the
  oasis concept and the oasis-24h reference, which then score it with oasis_points.

  vent_statuses: the ventilation statuses (int_mimiciv_treatment__ventilation) that count as
  mechanical ventilation: InvasiveVent only, as mimic-code (the default); the oasis-24h
  reference's variants add NonInvasiveVent (docs/explain.md).
-#}
{% macro oasis_first_day_values(vent_statuses=['InvasiveVent']) %}
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
        {%- if vent_statuses == ['InvasiveVent'] %}
        AND ventilation.ventilation_status = 'InvasiveVent'
        {%- else %}
        AND ventilation.ventilation_status IN ('{{ vent_statuses | join("', '") }}')
        {%- endif %}
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

)

SELECT * FROM cohort
{% endmacro %}
