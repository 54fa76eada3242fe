{#-
  The SOFA reference's SQL (model ref_sofa_24h), under its conventions as declared in
  models/marts/reference/ref_sofa_24h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Vincent JL et al. Intensive Care Med 1996;22:707-710.
-#}
{% macro m4_reference_sofa_24h(flip={}) %}
{%- set conventions = m4_conventions('ref_sofa_24h', ['window', 'gas_specimen', 'missing_component'], flip) -%}

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id, intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

vasopressor_rates AS (
    -- Infusion rates (mcg/kg/min) of the four SOFA agents whose infusion starts in the window
    -- (documented: intime - 6 h to intime + 24 h, both inclusive).
    {%- set agents = ['norepinephrine', 'epinephrine', 'dobutamine', 'dopamine'] %}
    {%- for agent in agents %}
    SELECT
        stays.stay_id,
        '{{ agent }}' AS agent,
        infusions.vaso_rate AS rate
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_medication__' ~ agent) }} AS infusions
        ON stays.stay_id = infusions.stay_id
        AND {{ m4_in_window('infusions.starttime', 'stays.intime', conventions.window) }}
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}
),

max_vasopressor_rates AS (
    SELECT
        stay_id,
        MAX(CASE WHEN agent = 'norepinephrine' THEN rate END) AS rate_norepinephrine,
        MAX(CASE WHEN agent = 'epinephrine' THEN rate END) AS rate_epinephrine,
        MAX(CASE WHEN agent = 'dopamine' THEN rate END) AS rate_dopamine,
        MAX(CASE WHEN agent = 'dobutamine' THEN rate END) AS rate_dobutamine
    FROM vasopressor_rates
    GROUP BY stay_id
),

arterial_gases AS (
    -- Arterial ('ART.') gases of the patient in the window (as the vasopressors), flagged when
    -- they fall inside an invasive-ventilation episode of this stay (ends inclusive).
    SELECT
        stays.stay_id,
        gases.pao2fio2ratio,
        CASE WHEN vent.stay_id IS NOT NULL THEN 1 ELSE 0 END AS on_invasive_vent
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__bg') }} AS gases
        ON stays.subject_id = gases.subject_id
        AND {{ m4_in_window('gases.charttime', 'stays.intime', conventions.window) }}
        {%- if conventions.gas_specimen.arterial_only %}
        AND gases.specimen = 'ART.'
        {%- endif %}
    LEFT JOIN {{ ref('int_mimiciv_treatment__ventilation') }} AS vent
        ON stays.stay_id = vent.stay_id
        AND {{ during_invasive_ventilation('gases.charttime', 'vent') }}
        AND vent.ventilation_status = 'InvasiveVent'
),

lowest_pf_ratio AS (
    SELECT
        stay_id,
        MIN(CASE WHEN on_invasive_vent = 0 THEN pao2fio2ratio END) AS pao2fio2_novent_min,
        MIN(CASE WHEN on_invasive_vent = 1 THEN pao2fio2ratio END) AS pao2fio2_vent_min
    FROM arterial_gases
    GROUP BY stay_id
),

first_day_values AS (
    SELECT
        stays.stay_id,
        vitals.mbp_min,
        vaso.rate_norepinephrine,
        vaso.rate_epinephrine,
        vaso.rate_dopamine,
        vaso.rate_dobutamine,
        labs.creatinine_max,
        labs.bilirubin_total_max AS bilirubin_max,
        labs.platelets_min AS platelet_min,
        pf.pao2fio2_novent_min,
        pf.pao2fio2_vent_min,
        urine.urineoutput,
        gcs.gcs_min
    FROM icu_stays AS stays
    LEFT JOIN max_vasopressor_rates AS vaso
        ON stays.stay_id = vaso.stay_id
    LEFT JOIN lowest_pf_ratio AS pf
        ON stays.stay_id = pf.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS vitals
        ON stays.stay_id = vitals.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS labs
        ON stays.stay_id = labs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS urine
        ON stays.stay_id = urine.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS gcs
        ON stays.stay_id = gcs.stay_id
),

component_scores AS (
    -- Each component is NULL when all of its inputs are missing.
    SELECT
        stay_id,
        -- respiration: scores 3 and 4 need invasive ventilation at the time of the gas
        {{ sofa_respiration_score('pao2fio2_vent_min', 'pao2fio2_novent_min') }} AS respiration,
        {{ sofa_coagulation_score('platelet_min') }} AS coagulation,
        {{ sofa_liver_score('bilirubin_max') }} AS liver,
        -- cardiovascular: epinephrine or norepinephrine up to 0.1 scores 3 only at a rate above 0
        {{ sofa_cardiovascular_score('mbp_min', low_dose_needs_a_rate=true) }} AS cardiovascular,
        {{ sofa_cns_score('gcs_min') }} AS cns,
        {{ sofa_renal_score('creatinine_max', 'urineoutput') }} AS renal
    FROM first_day_values
)

SELECT
    CAST(stays.subject_id AS INTEGER) AS subject_id,
    CAST(stays.hadm_id AS INTEGER) AS hadm_id,
    CAST(stays.stay_id AS INTEGER) AS stay_id,
    -- The total counts a component without data as normal (0); the component's own column as
    -- convention missing_component reads it (documented: 0 too).
    CAST(
        COALESCE(scores.respiration, 0)
        + COALESCE(scores.coagulation, 0)
        + COALESCE(scores.liver, 0)
        + COALESCE(scores.cardiovascular, 0)
        + COALESCE(scores.cns, 0)
        + COALESCE(scores.renal, 0)
        AS INTEGER
    ) AS sofa,
    CAST({{ m4_missing_as(conventions.missing_component, 'scores.respiration') }} AS INTEGER) AS respiration,
    CAST({{ m4_missing_as(conventions.missing_component, 'scores.coagulation') }} AS INTEGER) AS coagulation,
    CAST({{ m4_missing_as(conventions.missing_component, 'scores.liver') }} AS INTEGER) AS liver,
    CAST({{ m4_missing_as(conventions.missing_component, 'scores.cardiovascular') }} AS INTEGER) AS cardiovascular,
    CAST({{ m4_missing_as(conventions.missing_component, 'scores.cns') }} AS INTEGER) AS cns,
    CAST({{ m4_missing_as(conventions.missing_component, 'scores.renal') }} AS INTEGER) AS renal
FROM icu_stays AS stays
LEFT JOIN component_scores AS scores
    ON stays.stay_id = scores.stay_id
{% endmacro %}
