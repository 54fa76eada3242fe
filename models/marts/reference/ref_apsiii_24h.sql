-- Reference: Acute Physiology Score III (APACHE III) on the first day of each ICU stay (task
-- family apsiii, alias apsiii-24h). One row per ICU stay.
-- Knaus WA et al. The APACHE III prognostic system. Risk prediction of hospital mortality for
-- critically ill hospitalized adults. Chest 1991;100:1619-1636.
-- Conventions are listed in ref_apsiii_24h.yml.

{#- Variables scored "worst from normal": the extreme (lowest or highest) further from the
    midpoint is scored; when both are equally far, the higher score wins. -#}
{%- set worst_from_normal = [
    ('hr_score', 'heart_rate', 75),
    ('mbp_score', 'mbp', 90),
    ('temp_score', 'temperature', 38),
    ('resp_rate_score', 'resp_rate', 19),
    ('hematocrit_score', 'hematocrit', 45.5),
    ('wbc_score', 'wbc', 11.5),
    ('sodium_score', 'sodium', 145.5),
    ('albumin_score', 'albumin', 3.5),
    ('glucose_score', 'glucose', 130),
] %}

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id, intime, outtime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

invasive_vent AS (
    SELECT stay_id, starttime, endtime
    FROM {{ ref('int_mimiciv_treatment__ventilation') }}
    WHERE ventilation_status = 'InvasiveVent'
),

arterial_gases AS (
    -- Arterial ('ART.') gases of the admission from intime to the earlier of outtime and
    -- intime + 24 h (end exclusive), flagged when inside an invasive-ventilation episode
    -- of the stay (episode ends inclusive).
    SELECT
        stays.stay_id,
        gases.charttime,
        gases.po2,
        gases.aado2,
        gases.ph,
        gases.pco2,
        gases.fio2,
        gases.fio2_chartevents,
        EXISTS (
            SELECT 1
            FROM invasive_vent AS vent
            WHERE vent.stay_id = stays.stay_id
                AND gases.charttime >= vent.starttime
                AND gases.charttime <= vent.endtime
        ) AS on_invasive_vent
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__bg') }} AS gases
        ON stays.hadm_id = gases.hadm_id
        AND gases.charttime >= stays.intime
        AND gases.charttime < LEAST(stays.outtime, {{ dbt.dateadd('day', 1, 'stays.intime') }})
    WHERE gases.specimen = 'ART.'
),

oxygenation AS (
    -- Highest PaO2 of gases taken off invasive ventilation with FiO2 < 50 % (FiO2 unknown
    -- counts as 21 %), and highest A-aDO2 of gases on invasive ventilation with FiO2 >= 50 %.
    SELECT
        stay_id,
        MAX(
            CASE
                WHEN NOT on_invasive_vent AND COALESCE(fio2, fio2_chartevents, 21) < 50 THEN po2
            END
        ) AS pao2,
        MAX(
            CASE
                WHEN on_invasive_vent AND COALESCE(fio2, fio2_chartevents) >= 50 THEN aado2
            END
        ) AS aado2
    FROM arterial_gases
    GROUP BY stay_id
),

acid_base AS (
    -- Worst acid-base score over the arterial gases with both pH and PaCO2.
    SELECT
        stay_id,
        MAX(
            CASE
                WHEN ph < 7.20 THEN CASE WHEN pco2 < 50 THEN 12 ELSE 4 END
                WHEN ph < 7.30 THEN
                    CASE WHEN pco2 < 30 THEN 9 WHEN pco2 < 40 THEN 6 WHEN pco2 < 50 THEN 3 ELSE 2 END
                WHEN ph < 7.35 THEN CASE WHEN pco2 < 30 THEN 9 WHEN pco2 < 45 THEN 0 ELSE 1 END
                WHEN ph < 7.45 THEN CASE WHEN pco2 < 30 THEN 5 WHEN pco2 < 45 THEN 0 ELSE 1 END
                WHEN ph < 7.50 THEN
                    CASE WHEN pco2 < 30 THEN 5 WHEN pco2 < 35 THEN 0 WHEN pco2 < 45 THEN 2 ELSE 12 END
                WHEN ph < 7.60 THEN CASE WHEN pco2 < 40 THEN 3 ELSE 12 END
                ELSE CASE WHEN pco2 < 25 THEN 0 WHEN pco2 < 40 THEN 3 ELSE 12 END
            END
        ) AS acidbase_score
    FROM arterial_gases
    WHERE ph IS NOT NULL AND pco2 IS NOT NULL
    GROUP BY stay_id
),

chronic_kidney_disease AS (
    -- 1 when the admission has a CKD stage 4-6 code (first four characters in seed
    -- apsiii_chronic_kidney_disease_icd: ICD-9 5854-5856, ICD-10 N184-N186), 0 when it has
    -- other codes only.
    SELECT
        diagnoses.hadm_id,
        MAX(CASE WHEN ckd_codes.icd_prefix IS NOT NULL THEN 1 ELSE 0 END) AS ckd
    FROM {{ ref('stg_mimiciv_hosp__diagnoses_icd') }} AS diagnoses
    LEFT JOIN {{ ref('apsiii_chronic_kidney_disease_icd') }} AS ckd_codes
        ON diagnoses.icd_version = ckd_codes.icd_version
        AND SUBSTR(diagnoses.icd_code, 1, 4) = ckd_codes.icd_prefix
    GROUP BY diagnoses.hadm_id
),

acute_renal_failure AS (
    -- Acute renal failure: first-day creatinine >= 1.5 mg/dL, urine < 410 mL and no CKD
    -- code (an admission without diagnoses is not ARF).
    SELECT
        stays.stay_id,
        CASE
            WHEN labs.creatinine_max >= 1.5 AND urine.urineoutput < 410 AND ckd.ckd = 0 THEN 1
            ELSE 0
        END AS arf
    FROM icu_stays AS stays
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS urine
        ON stays.stay_id = urine.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS labs
        ON stays.stay_id = labs.stay_id
    LEFT JOIN chronic_kidney_disease AS ckd
        ON stays.hadm_id = ckd.hadm_id
),

ventilated_stays AS (
    -- 1 when an InvasiveVent episode starts, ends, or spans the first 24 hours.
    SELECT
        stays.stay_id,
        MAX(CASE WHEN vent.stay_id IS NOT NULL THEN 1 ELSE 0 END) AS vent
    FROM icu_stays AS stays
    LEFT JOIN invasive_vent AS vent
        ON stays.stay_id = vent.stay_id
        AND (
            (vent.starttime >= stays.intime AND vent.starttime <= {{ dbt.dateadd('day', 1, 'stays.intime') }})
            OR (vent.endtime >= stays.intime AND vent.endtime <= {{ dbt.dateadd('day', 1, 'stays.intime') }})
            OR (vent.starttime <= stays.intime AND vent.endtime >= {{ dbt.dateadd('day', 1, 'stays.intime') }})
        )
    GROUP BY stays.stay_id
),

first_day_values AS (
    -- Stays without an admission or patient row are left out here (inner joins, as the
    -- original) and get a NULL total below.
    SELECT
        stays.stay_id,
        vitals.heart_rate_min,
        vitals.heart_rate_max,
        vitals.mbp_min,
        vitals.mbp_max,
        vitals.temperature_min,
        vitals.temperature_max,
        vitals.resp_rate_min,
        vitals.resp_rate_max,
        oxy.pao2,
        oxy.aado2,
        acid.acidbase_score,
        labs.hematocrit_min,
        labs.hematocrit_max,
        labs.wbc_min,
        labs.wbc_max,
        labs.creatinine_min,
        labs.creatinine_max,
        labs.bun_min,
        labs.bun_max,
        labs.sodium_min,
        labs.sodium_max,
        labs.albumin_min,
        labs.albumin_max,
        labs.bilirubin_total_min AS bilirubin_min,
        labs.bilirubin_total_max AS bilirubin_max,
        -- Glucose: the more extreme of the laboratory and the bedside (vital sign) value.
        CASE
            WHEN labs.glucose_max IS NULL AND vitals.glucose_max IS NULL THEN NULL
            WHEN labs.glucose_max IS NULL OR vitals.glucose_max > labs.glucose_max THEN vitals.glucose_max
            ELSE labs.glucose_max
        END AS glucose_max,
        CASE
            WHEN labs.glucose_min IS NULL AND vitals.glucose_min IS NULL THEN NULL
            WHEN labs.glucose_min IS NULL OR vitals.glucose_min < labs.glucose_min THEN vitals.glucose_min
            ELSE labs.glucose_min
        END AS glucose_min,
        vent.vent,
        urine.urineoutput,
        gcs.gcs_motor,
        gcs.gcs_verbal,
        gcs.gcs_eyes,
        gcs.gcs_unable,
        arf.arf
    FROM icu_stays AS stays
    INNER JOIN {{ ref('stg_mimiciv_hosp__admissions') }} AS admissions
        ON stays.hadm_id = admissions.hadm_id
    INNER JOIN {{ ref('stg_mimiciv_hosp__patients') }} AS patients
        ON stays.subject_id = patients.subject_id
    LEFT JOIN oxygenation AS oxy
        ON stays.stay_id = oxy.stay_id
    LEFT JOIN acid_base AS acid
        ON stays.stay_id = acid.stay_id
    LEFT JOIN acute_renal_failure AS arf
        ON stays.stay_id = arf.stay_id
    LEFT JOIN ventilated_stays AS vent
        ON stays.stay_id = vent.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS gcs
        ON stays.stay_id = gcs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS vitals
        ON stays.stay_id = vitals.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS urine
        ON stays.stay_id = urine.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS labs
        ON stays.stay_id = labs.stay_id
),

{% for side in ['min', 'max'] %}
points_at_{{ side }} AS (
    -- Points of each variable's {{ 'lowest' if side == 'min' else 'highest' }} first-day value.
    SELECT
        stay_id,
        CASE
            WHEN heart_rate_{{ side }} IS NULL THEN NULL
            WHEN heart_rate_{{ side }} < 40 THEN 8
            WHEN heart_rate_{{ side }} < 50 THEN 5
            WHEN heart_rate_{{ side }} < 100 THEN 0
            WHEN heart_rate_{{ side }} < 110 THEN 1
            WHEN heart_rate_{{ side }} < 120 THEN 5
            WHEN heart_rate_{{ side }} < 140 THEN 7
            WHEN heart_rate_{{ side }} < 155 THEN 13
            WHEN heart_rate_{{ side }} >= 155 THEN 17
        END AS hr_score,
        CASE
            WHEN mbp_{{ side }} IS NULL THEN NULL
            WHEN mbp_{{ side }} < 40 THEN 23
            WHEN mbp_{{ side }} < 60 THEN 15
            WHEN mbp_{{ side }} < 70 THEN 7
            WHEN mbp_{{ side }} < 80 THEN 6
            WHEN mbp_{{ side }} < 100 THEN 0
            WHEN mbp_{{ side }} < 120 THEN 4
            WHEN mbp_{{ side }} < 130 THEN 7
            WHEN mbp_{{ side }} < 140 THEN 9
            WHEN mbp_{{ side }} >= 140 THEN 10
        END AS mbp_score,
        CASE
            WHEN temperature_{{ side }} IS NULL THEN NULL
            WHEN temperature_{{ side }} < 33.0 THEN 20
            WHEN temperature_{{ side }} < 33.5 THEN 16
            WHEN temperature_{{ side }} < 34.0 THEN 13
            WHEN temperature_{{ side }} < 35.0 THEN 8
            WHEN temperature_{{ side }} < 36.0 THEN 2
            WHEN temperature_{{ side }} < 40.0 THEN 0
            WHEN temperature_{{ side }} >= 40.0 THEN 4
        END AS temp_score,
        CASE
            WHEN resp_rate_{{ side }} IS NULL THEN NULL
            -- A slow rate on the ventilator is not penalised.
            WHEN vent = 1 AND resp_rate_{{ side }} < 14 THEN 0
            WHEN resp_rate_{{ side }} < 6 THEN 17
            WHEN resp_rate_{{ side }} < 12 THEN 8
            WHEN resp_rate_{{ side }} < 14 THEN 7
            WHEN resp_rate_{{ side }} < 25 THEN 0
            WHEN resp_rate_{{ side }} < 35 THEN 6
            WHEN resp_rate_{{ side }} < 40 THEN 9
            WHEN resp_rate_{{ side }} < 50 THEN 11
            WHEN resp_rate_{{ side }} >= 50 THEN 18
        END AS resp_rate_score,
        CASE
            WHEN hematocrit_{{ side }} IS NULL THEN NULL
            WHEN hematocrit_{{ side }} < 41.0 THEN 3
            WHEN hematocrit_{{ side }} < 50.0 THEN 0
            WHEN hematocrit_{{ side }} >= 50.0 THEN 3
        END AS hematocrit_score,
        CASE
            WHEN wbc_{{ side }} IS NULL THEN NULL
            WHEN wbc_{{ side }} < 1.0 THEN 19
            WHEN wbc_{{ side }} < 3.0 THEN 5
            WHEN wbc_{{ side }} < 20.0 THEN 0
            WHEN wbc_{{ side }} < 25.0 THEN 1
            WHEN wbc_{{ side }} >= 25.0 THEN 5
        END AS wbc_score,
        CASE
            WHEN creatinine_{{ side }} IS NULL THEN NULL
            -- With acute renal failure creatinine scores 0 or 10.
            WHEN arf = 1 AND creatinine_{{ side }} < 1.5 THEN 0
            WHEN arf = 1 AND creatinine_{{ side }} >= 1.5 THEN 10
            WHEN creatinine_{{ side }} < 0.5 THEN 3
            WHEN creatinine_{{ side }} < 1.5 THEN 0
            WHEN creatinine_{{ side }} < 1.95 THEN 4
            WHEN creatinine_{{ side }} >= 1.95 THEN 7
        END AS creatinine_score,
        CASE
            WHEN bun_{{ side }} IS NULL THEN NULL
            WHEN bun_{{ side }} < 17.0 THEN 0
            WHEN bun_{{ side }} < 20.0 THEN 2
            WHEN bun_{{ side }} < 40.0 THEN 7
            WHEN bun_{{ side }} < 80.0 THEN 11
            WHEN bun_{{ side }} >= 80.0 THEN 12
        END AS bun_score,
        CASE
            WHEN sodium_{{ side }} IS NULL THEN NULL
            WHEN sodium_{{ side }} < 120 THEN 3
            WHEN sodium_{{ side }} < 135 THEN 2
            WHEN sodium_{{ side }} < 155 THEN 0
            WHEN sodium_{{ side }} >= 155 THEN 4
        END AS sodium_score,
        CASE
            WHEN albumin_{{ side }} IS NULL THEN NULL
            WHEN albumin_{{ side }} < 2.0 THEN 11
            WHEN albumin_{{ side }} < 2.5 THEN 6
            WHEN albumin_{{ side }} < 4.5 THEN 0
            WHEN albumin_{{ side }} >= 4.5 THEN 4
        END AS albumin_score,
        CASE
            WHEN bilirubin_{{ side }} IS NULL THEN NULL
            WHEN bilirubin_{{ side }} < 2.0 THEN 0
            WHEN bilirubin_{{ side }} < 3.0 THEN 5
            WHEN bilirubin_{{ side }} < 5.0 THEN 6
            WHEN bilirubin_{{ side }} < 8.0 THEN 8
            WHEN bilirubin_{{ side }} >= 8.0 THEN 16
        END AS bilirubin_score,
        CASE
            WHEN glucose_{{ side }} IS NULL THEN NULL
            WHEN glucose_{{ side }} < 40 THEN 8
            WHEN glucose_{{ side }} < 60 THEN 9
            WHEN glucose_{{ side }} < 200 THEN 0
            WHEN glucose_{{ side }} < 350 THEN 3
            WHEN glucose_{{ side }} >= 350 THEN 5
        END AS glucose_score
    FROM first_day_values
),
{% endfor %}

component_scores AS (
    SELECT
        vals.stay_id,
        {%- for score, variable, midpoint in worst_from_normal %}
        CASE
            WHEN vals.{{ variable }}_max IS NULL THEN NULL
            WHEN ABS(vals.{{ variable }}_max - {{ midpoint }}) > ABS(vals.{{ variable }}_min - {{ midpoint }})
                THEN at_max.{{ score }}
            WHEN ABS(vals.{{ variable }}_max - {{ midpoint }}) < ABS(vals.{{ variable }}_min - {{ midpoint }})
                THEN at_min.{{ score }}
            WHEN ABS(vals.{{ variable }}_max - {{ midpoint }}) = ABS(vals.{{ variable }}_min - {{ midpoint }})
                AND at_max.{{ score }} >= at_min.{{ score }}
                THEN at_max.{{ score }}
            WHEN ABS(vals.{{ variable }}_max - {{ midpoint }}) = ABS(vals.{{ variable }}_min - {{ midpoint }})
                AND at_max.{{ score }} < at_min.{{ score }}
                THEN at_min.{{ score }}
        END AS {{ score }},
        {%- endfor %}
        -- Creatinine: always the highest value with acute renal failure, otherwise worst
        -- from 1.0 mg/dL, ties to the higher score.
        CASE
            WHEN vals.creatinine_max IS NULL THEN NULL
            WHEN vals.arf = 1 THEN at_max.creatinine_score
            WHEN ABS(vals.creatinine_max - 1) > ABS(vals.creatinine_min - 1) THEN at_max.creatinine_score
            WHEN ABS(vals.creatinine_max - 1) < ABS(vals.creatinine_min - 1) THEN at_min.creatinine_score
            WHEN at_max.creatinine_score >= at_min.creatinine_score THEN at_max.creatinine_score
            WHEN at_max.creatinine_score < at_min.creatinine_score THEN at_min.creatinine_score
        END AS creatinine_score,
        -- BUN and bilirubin: always the highest value.
        CASE WHEN vals.bun_max IS NULL THEN NULL ELSE at_max.bun_score END AS bun_score,
        CASE WHEN vals.bilirubin_max IS NULL THEN NULL ELSE at_max.bilirubin_score END AS bilirubin_score,
        CASE
            WHEN vals.urineoutput IS NULL THEN NULL
            WHEN vals.urineoutput < 400 THEN 15
            WHEN vals.urineoutput < 600 THEN 8
            WHEN vals.urineoutput < 900 THEN 7
            WHEN vals.urineoutput < 1500 THEN 5
            WHEN vals.urineoutput < 2000 THEN 4
            WHEN vals.urineoutput < 4000 THEN 0
            WHEN vals.urineoutput >= 4000 THEN 1
        END AS uo_score,
        -- GCS: eyes x verbal x motor table; unable to assess (intubated) scores 0 and
        -- combinations outside the table (e.g. eyes closed but talking) are NULL.
        CASE
            WHEN vals.gcs_unable = 1 THEN 0
            WHEN vals.gcs_eyes = 1 THEN
                CASE
                    WHEN vals.gcs_verbal = 1 AND vals.gcs_motor IN (1, 2) THEN 48
                    WHEN vals.gcs_verbal = 1 AND vals.gcs_motor IN (3, 4) THEN 33
                    WHEN vals.gcs_verbal = 1 AND vals.gcs_motor IN (5, 6) THEN 16
                    WHEN vals.gcs_verbal IN (2, 3) AND vals.gcs_motor IN (1, 2) THEN 29
                    WHEN vals.gcs_verbal IN (2, 3) AND vals.gcs_motor IN (3, 4) THEN 24
                END
            WHEN vals.gcs_eyes > 1 THEN
                CASE
                    WHEN vals.gcs_verbal = 1 AND vals.gcs_motor IN (1, 2) THEN 29
                    WHEN vals.gcs_verbal = 1 AND vals.gcs_motor IN (3, 4) THEN 24
                    WHEN vals.gcs_verbal = 1 AND vals.gcs_motor IN (5, 6) THEN 15
                    WHEN vals.gcs_verbal IN (2, 3) AND vals.gcs_motor IN (1, 2) THEN 29
                    WHEN vals.gcs_verbal IN (2, 3) AND vals.gcs_motor IN (3, 4) THEN 24
                    WHEN vals.gcs_verbal IN (2, 3) AND vals.gcs_motor = 5 THEN 13
                    WHEN vals.gcs_verbal IN (2, 3) AND vals.gcs_motor = 6 THEN 10
                    WHEN vals.gcs_verbal = 4 AND vals.gcs_motor IN (1, 2, 3, 4) THEN 13
                    WHEN vals.gcs_verbal = 4 AND vals.gcs_motor = 5 THEN 8
                    WHEN vals.gcs_verbal = 4 AND vals.gcs_motor = 6 THEN 3
                    WHEN vals.gcs_verbal = 5 AND vals.gcs_motor IN (1, 2, 3, 4, 5) THEN 3
                    WHEN vals.gcs_verbal = 5 AND vals.gcs_motor = 6 THEN 0
                END
        END AS gcs_score,
        -- Oxygenation: PaO2 when available, otherwise A-aDO2.
        CASE
            WHEN vals.pao2 IS NOT NULL THEN
                CASE
                    WHEN vals.pao2 < 50 THEN 15
                    WHEN vals.pao2 < 70 THEN 5
                    WHEN vals.pao2 < 80 THEN 2
                    ELSE 0
                END
            WHEN vals.aado2 IS NOT NULL THEN
                CASE
                    WHEN vals.aado2 < 100 THEN 0
                    WHEN vals.aado2 < 250 THEN 7
                    WHEN vals.aado2 < 350 THEN 9
                    WHEN vals.aado2 < 500 THEN 11
                    ELSE 14
                END
        END AS pao2_aado2_score,
        vals.acidbase_score
    FROM first_day_values AS vals
    LEFT JOIN points_at_min AS at_min
        ON vals.stay_id = at_min.stay_id
    LEFT JOIN points_at_max AS at_max
        ON vals.stay_id = at_max.stay_id
),

{%- set components = [
    'hr_score', 'mbp_score', 'temp_score', 'resp_rate_score', 'pao2_aado2_score',
    'hematocrit_score', 'wbc_score', 'creatinine_score', 'uo_score', 'bun_score',
    'sodium_score', 'albumin_score', 'bilirubin_score', 'glucose_score', 'acidbase_score',
    'gcs_score',
] %}

totals AS (
    -- A component without data counts 0.
    SELECT
        stay_id,
        {%- for component in components %}
        {{ '+ ' if not loop.first }}COALESCE({{ component }}, 0)
        {%- endfor %}
        AS apsiii
    FROM component_scores
)

SELECT
    CAST(stays.subject_id AS INTEGER) AS subject_id,
    CAST(stays.hadm_id AS INTEGER) AS hadm_id,
    CAST(stays.stay_id AS INTEGER) AS stay_id,
    -- NULL only for a stay without an admission or patient row.
    CAST(totals.apsiii AS INTEGER) AS apsiii,
    {%- for component in components %}
    CAST(COALESCE(scores.{{ component }}, 0) AS INTEGER) AS {{ component }}{{ ',' if not loop.last }}
    {%- endfor %}
FROM icu_stays AS stays
LEFT JOIN component_scores AS scores
    ON stays.stay_id = scores.stay_id
LEFT JOIN totals
    ON stays.stay_id = totals.stay_id
