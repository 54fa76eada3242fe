-- Reference: Oxford Acute Severity of Illness Score on the first day of each ICU stay (task
-- family oasis, alias oasis-24h). One row per ICU stay with an admission and a patient row.
-- Johnson AEW, Kramer AA, Clifford GD. A new severity of illness scale using a subset of
-- Acute Physiology And Chronic Health Evaluation data elements shows comparable predictive
-- accuracy. Crit Care Med 2013;41:1711-1718. Conventions are listed in ref_oasis_24h.yml.

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id, intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

surgical_stays AS (
    -- 1 when any service of the admission that started before intime + 24 h is surgical
    -- (curr_service containing 'surg', any case, or 'ORTHO').
    SELECT
        stays.stay_id,
        MAX(
            CASE
                WHEN LOWER(services.curr_service) LIKE '%surg%' THEN 1
                WHEN services.curr_service = 'ORTHO' THEN 1
                ELSE 0
            END
        ) AS surgical
    FROM icu_stays AS stays
    LEFT JOIN {{ ref('stg_mimiciv_hosp__services') }} AS services
        ON stays.hadm_id = services.hadm_id
        AND services.transfertime < {{ dbt.dateadd('day', 1, 'stays.intime') }}
    GROUP BY stays.stay_id
),

ventilated_stays AS (
    -- 1 when an InvasiveVent episode starts, ends, or spans the first 24 hours.
    SELECT
        stays.stay_id,
        MAX(CASE WHEN vent.stay_id IS NOT NULL THEN 1 ELSE 0 END) AS mechvent
    FROM icu_stays AS stays
    LEFT JOIN {{ ref('int_mimiciv_treatment__ventilation') }} AS vent
        ON stays.stay_id = vent.stay_id
        AND vent.ventilation_status = 'InvasiveVent'
        AND (
            (vent.starttime >= stays.intime AND vent.starttime <= {{ dbt.dateadd('day', 1, 'stays.intime') }})
            OR (vent.endtime >= stays.intime AND vent.endtime <= {{ dbt.dateadd('day', 1, 'stays.intime') }})
            OR (vent.starttime <= stays.intime AND vent.endtime >= {{ dbt.dateadd('day', 1, 'stays.intime') }})
        )
    GROUP BY stays.stay_id
),

first_day_values AS (
    -- Stays without an admission or patient row are left out (inner joins, as the original).
    SELECT
        stays.subject_id,
        stays.hadm_id,
        stays.stay_id,
        -- Minutes from hospital admission to ICU admission, fractional.
        {{ dbt.datediff('admissions.admittime', 'stays.intime', 'microsecond') }} / 60000000.0 AS preiculos,
        ages.age,
        gcs.gcs_min,
        vitals.heart_rate_max,
        vitals.heart_rate_min,
        vitals.mbp_max,
        vitals.mbp_min,
        vitals.resp_rate_max,
        vitals.resp_rate_min,
        vitals.temperature_max,
        vitals.temperature_min,
        vent.mechvent,
        urine.urineoutput,
        CASE
            WHEN admissions.admission_type = 'ELECTIVE' AND surgery.surgical = 1 THEN 1
            WHEN admissions.admission_type IS NULL OR surgery.surgical IS NULL THEN NULL
            ELSE 0
        END AS electivesurgery
    FROM icu_stays AS stays
    INNER JOIN {{ ref('stg_mimiciv_hosp__admissions') }} AS admissions
        ON stays.hadm_id = admissions.hadm_id
    INNER JOIN {{ ref('stg_mimiciv_hosp__patients') }} AS patients
        ON stays.subject_id = patients.subject_id
    LEFT JOIN {{ ref('int_mimiciv_demographics__age') }} AS ages
        ON stays.hadm_id = ages.hadm_id
    LEFT JOIN surgical_stays AS surgery
        ON stays.stay_id = surgery.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS gcs
        ON stays.stay_id = gcs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS vitals
        ON stays.stay_id = vitals.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS urine
        ON stays.stay_id = urine.stay_id
    LEFT JOIN ventilated_stays AS vent
        ON stays.stay_id = vent.stay_id
),

component_scores AS (
    -- Each component is NULL when its data are missing.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        {{ oasis_points('preiculos') }} AS preiculos_score,
        {{ oasis_points('age') }} AS age_score,
        {{ oasis_points('gcs') }} AS gcs_score,
        {{ oasis_points('heart_rate') }} AS heart_rate_score,
        {{ oasis_points('mbp') }} AS mbp_score,
        {{ oasis_points('resp_rate') }} AS resp_rate_score,
        {{ oasis_points('temperature') }} AS temp_score,
        {{ oasis_points('urineoutput') }} AS urineoutput_score,
        {{ oasis_points('mechvent') }} AS mechvent_score,
        {{ oasis_points('electivesurgery') }} AS electivesurgery_score
    FROM first_day_values
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    -- A component without data scores 0, in the total and in the components.
    CAST(
        COALESCE(preiculos_score, 0)
        + COALESCE(age_score, 0)
        + COALESCE(gcs_score, 0)
        + COALESCE(heart_rate_score, 0)
        + COALESCE(mbp_score, 0)
        + COALESCE(resp_rate_score, 0)
        + COALESCE(temp_score, 0)
        + COALESCE(urineoutput_score, 0)
        + COALESCE(mechvent_score, 0)
        + COALESCE(electivesurgery_score, 0)
        AS INTEGER
    ) AS oasis,
    CAST(COALESCE(preiculos_score, 0) AS INTEGER) AS preiculos_score,
    CAST(COALESCE(age_score, 0) AS INTEGER) AS age_score,
    CAST(COALESCE(gcs_score, 0) AS INTEGER) AS gcs_score,
    CAST(COALESCE(heart_rate_score, 0) AS INTEGER) AS heart_rate_score,
    CAST(COALESCE(mbp_score, 0) AS INTEGER) AS mbp_score,
    CAST(COALESCE(resp_rate_score, 0) AS INTEGER) AS resp_rate_score,
    CAST(COALESCE(temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(urineoutput_score, 0) AS INTEGER) AS urineoutput_score,
    CAST(COALESCE(mechvent_score, 0) AS INTEGER) AS mechvent_score,
    CAST(COALESCE(electivesurgery_score, 0) AS INTEGER) AS electivesurgery_score
FROM component_scores
