-- Reference: Acute Physiology Score III (APACHE III) on the first day of each ICU stay (task
-- family apsiii, alias apsiii-24h). One row per ICU stay.
-- Knaus WA et al. The APACHE III prognostic system. Risk prediction of hospital mortality for
-- critically ill hospitalized adults. Chest 1991;100:1619-1636.
-- Conventions are listed in ref_apsiii_24h.yml.

{#- The variables scored from their lowest and highest first-day values (macros apsiii_points
    and apsiii_scored_extreme), with the names of their score columns. -#}
{%- set extremes_scored = [
    ('hr_score', 'heart_rate'),
    ('mbp_score', 'mbp'),
    ('temp_score', 'temperature'),
    ('resp_rate_score', 'resp_rate'),
    ('hematocrit_score', 'hematocrit'),
    ('wbc_score', 'wbc'),
    ('creatinine_score', 'creatinine'),
    ('bun_score', 'bun'),
    ('sodium_score', 'sodium'),
    ('albumin_score', 'albumin'),
    ('bilirubin_score', 'bilirubin'),
    ('glucose_score', 'glucose'),
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
        MAX({{ apsiii_acid_base_points('ph', 'pco2') }}) AS acidbase_score
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
        {%- for score, variable in extremes_scored %}
        {{ apsiii_points(variable, variable ~ '_' ~ side) }} AS {{ score }}{{ ',' if not loop.last }}
        {%- endfor %}
    FROM first_day_values
),
{% endfor %}

component_scores AS (
    SELECT
        vals.stay_id,
        -- Each variable scores the extreme farther from its normal midpoint, ties to the
        -- higher points; BUN and bilirubin (and creatinine with acute renal failure) score
        -- the highest value.
        {%- for score, variable in extremes_scored %}
        {{ apsiii_scored_extreme(variable, 'vals.' ~ variable ~ '_min', 'vals.' ~ variable ~ '_max',
                                 'at_min.' ~ score, 'at_max.' ~ score, arf='vals.arf') }} AS {{ score }},
        {%- endfor %}
        {{ apsiii_urine_output_points('vals.urineoutput') }} AS uo_score,
        -- GCS: unable to assess (intubated) scores 0; combinations outside the grid are NULL.
        {{ apsiii_gcs_points('vals.gcs_eyes', 'vals.gcs_verbal', 'vals.gcs_motor', 'vals.gcs_unable') }} AS gcs_score,
        -- Oxygenation: PaO2 when available, otherwise A-aDO2.
        {{ apsiii_oxygenation_points('vals.pao2', 'vals.aado2') }} AS pao2_aado2_score,
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
