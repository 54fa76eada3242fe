-- Reference: Simplified Acute Physiology Score II on the first 24 hours of each ICU stay (task
-- family sapsii, alias sapsii-24h). One row per ICU stay with an admission row.
-- Le Gall JR, Lemeshow S, Saulnier F. A new Simplified Acute Physiology Score (SAPS II) based
-- on a European/North American multicenter study. JAMA 1993;270:2957-2963.
-- Conventions are listed in ref_sapsii_24h.yml.

WITH icu_stays AS (
    -- The scoring window is (intime, intime + 24 h]: start exclusive, end inclusive.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        intime AS starttime,
        {{ dbt.dateadd('hour', 24, 'intime') }} AS endtime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

cpap_periods AS (
    -- CPAP or BiPAP masks charted as O2 delivery device (itemid 226732) in the window; the
    -- period runs from 1 h before the first to 4 h after the last charting, clipped to it.
    SELECT
        stays.subject_id,
        stays.stay_id,
        GREATEST(MIN({{ dbt.dateadd('hour', -1, 'charted.charttime') }}), stays.starttime) AS starttime,
        LEAST(MAX({{ dbt.dateadd('hour', 4, 'charted.charttime') }}), stays.endtime) AS endtime
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_events__chartevents_used') }} AS charted
        ON stays.stay_id = charted.stay_id
        AND charted.charttime > stays.starttime
        AND charted.charttime <= stays.endtime
    WHERE charted.itemid = 226732
        AND (LOWER(charted.value) LIKE '%cpap mask%' OR LOWER(charted.value) LIKE '%bipap%')
    GROUP BY stays.subject_id, stays.stay_id, stays.starttime, stays.endtime
),

first_service AS (
    -- The admission's first service (earliest transfertime, NULL first) decides whether it
    -- is surgical. Two services at the earliest transfertime (the original picks either,
    -- by physical row order): a surgical one wins, then the service name (see
    -- ref_sapsii_24h.yml).
    SELECT
        admissions.hadm_id,
        CASE WHEN LOWER(services.curr_service) LIKE '%surg%' THEN 1 ELSE 0 END AS surgical
    FROM {{ ref('stg_mimiciv_hosp__admissions') }} AS admissions
    LEFT JOIN {{ ref('stg_mimiciv_hosp__services') }} AS services
        ON admissions.hadm_id = services.hadm_id
    QUALIFY ROW_NUMBER() OVER (
        PARTITION BY admissions.hadm_id
        ORDER BY
            services.transfertime NULLS FIRST,
            CASE WHEN LOWER(services.curr_service) LIKE '%surg%' THEN 0 ELSE 1 END,
            services.curr_service
    ) = 1
),

chronic_diseases AS (
    -- AIDS, haematological malignancy and metastatic cancer from the admission's ICD codes:
    -- a code matches a range of seed sapsii_comorbidity_icd_ranges when its first
    -- prefix_length characters lie between code_from and code_to, compared as text.
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

arterial_gases AS (
    -- Arterial gases of the patient in the window, flagged when taken during invasive
    -- ventilation of this stay or during a CPAP/BiPAP period of any of the patient's stays
    -- (both intervals start exclusive, end inclusive).
    SELECT
        stays.stay_id,
        gases.pao2fio2ratio AS pao2fio2,
        CASE WHEN vent.stay_id IS NOT NULL THEN 1 ELSE 0 END AS on_invasive_vent,
        CASE WHEN cpap.subject_id IS NOT NULL THEN 1 ELSE 0 END AS on_cpap
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__bg') }} AS gases
        ON stays.subject_id = gases.subject_id
        AND gases.specimen = 'ART.'
        AND gases.charttime > stays.starttime
        AND gases.charttime <= stays.endtime
    LEFT JOIN {{ ref('int_mimiciv_treatment__ventilation') }} AS vent
        ON stays.stay_id = vent.stay_id
        AND gases.charttime > vent.starttime
        AND gases.charttime <= vent.endtime
        AND vent.ventilation_status = 'InvasiveVent'
    LEFT JOIN cpap_periods AS cpap
        ON gases.subject_id = cpap.subject_id
        AND gases.charttime > cpap.starttime
        AND gases.charttime <= cpap.endtime
),

lowest_ventilated_pf_ratio AS (
    -- PaO2/FiO2 counts only while ventilated or on CPAP/BiPAP.
    SELECT stay_id, MIN(pao2fio2) AS pao2fio2_vent_min
    FROM arterial_gases
    WHERE on_invasive_vent = 1 OR on_cpap = 1
    GROUP BY stay_id
),

lowest_gcs AS (
    SELECT stays.stay_id, MIN(gcs.gcs) AS mingcs
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__gcs') }} AS gcs
        ON stays.stay_id = gcs.stay_id
        AND gcs.charttime > stays.starttime
        AND gcs.charttime <= stays.endtime
    GROUP BY stays.stay_id
),

vital_ranges AS (
    -- Vital signs of the patient (any stay) charted in the window.
    SELECT
        stays.stay_id,
        MIN(vitals.heart_rate) AS heartrate_min,
        MAX(vitals.heart_rate) AS heartrate_max,
        MIN(vitals.sbp) AS sysbp_min,
        MAX(vitals.sbp) AS sysbp_max,
        MIN(vitals.temperature) AS tempc_min,
        MAX(vitals.temperature) AS tempc_max
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__vitalsign') }} AS vitals
        ON stays.subject_id = vitals.subject_id
        AND vitals.charttime > stays.starttime
        AND vitals.charttime <= stays.endtime
    GROUP BY stays.stay_id
),

urine_totals AS (
    SELECT stays.stay_id, SUM(urine.urineoutput) AS urineoutput
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__urine_output') }} AS urine
        ON stays.stay_id = urine.stay_id
        AND urine.charttime > stays.starttime
        AND urine.charttime <= stays.endtime
    GROUP BY stays.stay_id
),

chemistry_ranges AS (
    -- Laboratory values of the patient (any admission) charted in the window.
    SELECT
        stays.stay_id,
        MIN(labs.bun) AS bun_min,
        MAX(labs.bun) AS bun_max,
        MIN(labs.potassium) AS potassium_min,
        MAX(labs.potassium) AS potassium_max,
        MIN(labs.sodium) AS sodium_min,
        MAX(labs.sodium) AS sodium_max,
        MIN(labs.bicarbonate) AS bicarbonate_min,
        MAX(labs.bicarbonate) AS bicarbonate_max
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__chemistry') }} AS labs
        ON stays.subject_id = labs.subject_id
        AND labs.charttime > stays.starttime
        AND labs.charttime <= stays.endtime
    GROUP BY stays.stay_id
),

blood_count_ranges AS (
    SELECT stays.stay_id, MIN(cbc.wbc) AS wbc_min, MAX(cbc.wbc) AS wbc_max
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__complete_blood_count') }} AS cbc
        ON stays.subject_id = cbc.subject_id
        AND cbc.charttime > stays.starttime
        AND cbc.charttime <= stays.endtime
    GROUP BY stays.stay_id
),

bilirubin_ranges AS (
    SELECT stays.stay_id, MIN(enzymes.bilirubin_total) AS bilirubin_min, MAX(enzymes.bilirubin_total) AS bilirubin_max
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__enzyme') }} AS enzymes
        ON stays.subject_id = enzymes.subject_id
        AND enzymes.charttime > stays.starttime
        AND enzymes.charttime <= stays.endtime
    GROUP BY stays.stay_id
),

first_day_values AS (
    -- Stays without an admission row are left out (inner join, as the original).
    SELECT
        stays.subject_id,
        stays.hadm_id,
        stays.stay_id,
        ages.age,
        vitals.heartrate_max,
        vitals.heartrate_min,
        vitals.sysbp_max,
        vitals.sysbp_min,
        vitals.tempc_max,
        vitals.tempc_min,
        pf.pao2fio2_vent_min,
        urine.urineoutput,
        chem.bun_min,
        chem.bun_max,
        cbc.wbc_min,
        cbc.wbc_max,
        chem.potassium_min,
        chem.potassium_max,
        chem.sodium_min,
        chem.sodium_max,
        chem.bicarbonate_min,
        chem.bicarbonate_max,
        bili.bilirubin_min,
        bili.bilirubin_max,
        gcs.mingcs,
        chronic.aids,
        chronic.hem,
        chronic.mets,
        CASE
            WHEN admissions.admission_type = 'ELECTIVE' AND service.surgical = 1 THEN 'ScheduledSurgical'
            WHEN admissions.admission_type <> 'ELECTIVE' AND service.surgical = 1 THEN 'UnscheduledSurgical'
            ELSE 'Medical'
        END AS admissiontype
    FROM icu_stays AS stays
    INNER JOIN {{ ref('stg_mimiciv_hosp__admissions') }} AS admissions
        ON stays.hadm_id = admissions.hadm_id
    LEFT JOIN {{ ref('int_mimiciv_demographics__age') }} AS ages
        ON stays.hadm_id = ages.hadm_id
    LEFT JOIN lowest_ventilated_pf_ratio AS pf
        ON stays.stay_id = pf.stay_id
    LEFT JOIN first_service AS service
        ON admissions.hadm_id = service.hadm_id
    LEFT JOIN chronic_diseases AS chronic
        ON stays.hadm_id = chronic.hadm_id
    LEFT JOIN lowest_gcs AS gcs
        ON stays.stay_id = gcs.stay_id
    LEFT JOIN vital_ranges AS vitals
        ON stays.stay_id = vitals.stay_id
    LEFT JOIN urine_totals AS urine
        ON stays.stay_id = urine.stay_id
    LEFT JOIN chemistry_ranges AS chem
        ON stays.stay_id = chem.stay_id
    LEFT JOIN blood_count_ranges AS cbc
        ON stays.stay_id = cbc.stay_id
    LEFT JOIN bilirubin_ranges AS bili
        ON stays.stay_id = bili.stay_id
),

component_scores AS (
    -- Each component is NULL when its data are missing (or fall in no band).
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        {{ sapsii_component_scores() }}
    FROM first_day_values
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    -- A component without data scores 0, in the total and in the components.
    CAST(
        COALESCE(age_score, 0)
        + COALESCE(hr_score, 0)
        + COALESCE(sysbp_score, 0)
        + COALESCE(temp_score, 0)
        + COALESCE(pao2fio2_score, 0)
        + COALESCE(uo_score, 0)
        + COALESCE(bun_score, 0)
        + COALESCE(wbc_score, 0)
        + COALESCE(potassium_score, 0)
        + COALESCE(sodium_score, 0)
        + COALESCE(bicarbonate_score, 0)
        + COALESCE(bilirubin_score, 0)
        + COALESCE(gcs_score, 0)
        + COALESCE(comorbidity_score, 0)
        + COALESCE(admissiontype_score, 0)
        AS INTEGER
    ) AS sapsii,
    CAST(COALESCE(age_score, 0) AS INTEGER) AS age_score,
    CAST(COALESCE(hr_score, 0) AS INTEGER) AS hr_score,
    CAST(COALESCE(sysbp_score, 0) AS INTEGER) AS sysbp_score,
    CAST(COALESCE(temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(pao2fio2_score, 0) AS INTEGER) AS pao2fio2_score,
    CAST(COALESCE(uo_score, 0) AS INTEGER) AS uo_score,
    CAST(COALESCE(bun_score, 0) AS INTEGER) AS bun_score,
    CAST(COALESCE(wbc_score, 0) AS INTEGER) AS wbc_score,
    CAST(COALESCE(potassium_score, 0) AS INTEGER) AS potassium_score,
    CAST(COALESCE(sodium_score, 0) AS INTEGER) AS sodium_score,
    CAST(COALESCE(bicarbonate_score, 0) AS INTEGER) AS bicarbonate_score,
    CAST(COALESCE(bilirubin_score, 0) AS INTEGER) AS bilirubin_score,
    CAST(COALESCE(gcs_score, 0) AS INTEGER) AS gcs_score,
    CAST(COALESCE(comorbidity_score, 0) AS INTEGER) AS comorbidity_score,
    CAST(COALESCE(admissiontype_score, 0) AS INTEGER) AS admissiontype_score
FROM component_scores
