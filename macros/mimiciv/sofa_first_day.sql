{#-
  SOFA over the first ICU day (Vincent JL et al., Intensive Care Med 1996;22:707-710), one row per
  ICU stay, as mimic-code's mimic-iv/concepts/firstday/first_day_sofa.sql assembles it: the values
  of the first-day concepts (MAP, platelets, bilirubin, creatinine, urine output, GCS), the highest
  rate of each SOFA vasopressor whose infusion starts in the window, and the lowest PaO2/FiO2 of the
  patient's gases (matched on subject_id) in the window, on and off invasive ventilation; scored by
  the organ macros (sofa_organ_scores.sql), the total counting an organ without data as 0. One
  query, shared by the first_day_sofa concept (the defaults are mimic-code's) and the sofa-24h
  reference with its variants, which read the parameters from their conventions.

  window: where the gases and the infusion starts count, a window reading as m4_in_window takes it;
    mimic-code's: intime - 6 h to intime + 24 h, both ends included.
  arterial_only: only gases of specimen 'ART.' (the reference); mimic-code (m4-infra) takes every specimen.
  low_dose_needs_a_rate: as sofa_cardiovascular_score takes it.
  missing_component: what an organ without data shows in its own column, a missing-data reading as
    m4_missing_as takes it; mimic-code's: NULL.
-#}
{% macro sofa_first_day(
    window={'start_hours': -6, 'end_hours': 24, 'end': 'closed'},
    arterial_only=false,
    low_dose_needs_a_rate=false,
    missing_component={'value': none}
) %}
WITH icustays AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

vasopressor_infusions AS (

    {{ sofa_vasopressor_infusions() }}

),

highest_vasopressor_rates AS (

    -- the highest rate of each agent among the infusions that start in the window
    SELECT
        icustays.stay_id,
        MAX(CASE WHEN infusions.agent = 'norepinephrine' THEN infusions.vaso_rate END) AS rate_norepinephrine,
        MAX(CASE WHEN infusions.agent = 'epinephrine' THEN infusions.vaso_rate END) AS rate_epinephrine,
        MAX(CASE WHEN infusions.agent = 'dopamine' THEN infusions.vaso_rate END) AS rate_dopamine,
        MAX(CASE WHEN infusions.agent = 'dobutamine' THEN infusions.vaso_rate END) AS rate_dobutamine
    FROM icustays
    INNER JOIN vasopressor_infusions AS infusions
        ON
            icustays.stay_id = infusions.stay_id
            AND {{ m4_in_window('infusions.starttime', 'icustays.intime', window) }}
    GROUP BY icustays.stay_id

),

invasive_ventilation AS (

    {{ invasive_ventilation_episodes() }}

),

window_gases AS (

    -- the patient's gases in the window, flagged when taken during invasive ventilation of this
    -- stay (episode ends included)
    SELECT
        icustays.stay_id,
        bg.pao2fio2ratio,
        CASE WHEN invasive_ventilation.stay_id IS NOT NULL THEN 1 ELSE 0 END AS isvent
    FROM icustays
    INNER JOIN {{ ref('int_mimiciv_measurement__bg') }} AS bg
        ON
            icustays.subject_id = bg.subject_id
            AND {{ m4_in_window('bg.charttime', 'icustays.intime', window) }}
            {%- if arterial_only %}
            AND bg.specimen = 'ART.'
            {%- endif %}
    LEFT JOIN invasive_ventilation
        ON
            icustays.stay_id = invasive_ventilation.stay_id
            AND {{ during_invasive_ventilation('bg.charttime', 'invasive_ventilation') }}

),

lowest_pao2fio2 AS (

    SELECT
        stay_id,
        MIN(CASE WHEN isvent = 0 THEN pao2fio2ratio END) AS pao2fio2_novent_min,
        MIN(CASE WHEN isvent = 1 THEN pao2fio2ratio END) AS pao2fio2_vent_min
    FROM window_gases
    GROUP BY stay_id

),

score_components AS (

    SELECT
        icustays.stay_id,
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
    FROM icustays
    LEFT JOIN highest_vasopressor_rates AS vaso
        ON icustays.stay_id = vaso.stay_id
    LEFT JOIN lowest_pao2fio2 AS pf
        ON icustays.stay_id = pf.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS vitals
        ON icustays.stay_id = vitals.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS labs
        ON icustays.stay_id = labs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS urine
        ON icustays.stay_id = urine.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS gcs
        ON icustays.stay_id = gcs.stay_id

),

component_scores AS (

    -- Each organ scores 0-4, NULL when all of its inputs are missing.
    SELECT
        stay_id,
        -- respiration: PaO2/FiO2 < 200 and < 100 count only while invasively ventilated
        {{ sofa_respiration_score('pao2fio2_vent_min', 'pao2fio2_novent_min') }} AS respiration,
        {{ sofa_coagulation_score('platelet_min') }} AS coagulation,
        {{ sofa_liver_score('bilirubin_max') }} AS liver,
        -- cardiovascular: any epinephrine or norepinephrine up to 0.1 scores 3 (mimic-code), with
        -- low_dose_needs_a_rate only a rate above 0
        {{ sofa_cardiovascular_score('mbp_min', low_dose_needs_a_rate=low_dose_needs_a_rate) }} AS cardiovascular,
        {{ sofa_cns_score('gcs_min') }} AS cns,
        -- renal: creatinine or first-day urine output
        {{ sofa_renal_score('creatinine_max', 'urineoutput') }} AS renal
    FROM score_components

),

first_day_sofa AS (

    -- Typed as the reference's contract declares (the concept's columns are integers already).
    -- The total counts an organ without data as 0; its own column shows it as missing_component reads it.
    SELECT
        CAST(icustays.subject_id AS INTEGER) AS subject_id,
        CAST(icustays.hadm_id AS INTEGER) AS hadm_id,
        CAST(icustays.stay_id AS INTEGER) AS stay_id,
        CAST(
            COALESCE(scores.respiration, 0)
            + COALESCE(scores.coagulation, 0)
            + COALESCE(scores.liver, 0)
            + COALESCE(scores.cardiovascular, 0)
            + COALESCE(scores.cns, 0)
            + COALESCE(scores.renal, 0)
            AS INTEGER
        ) AS sofa,
        CAST({{ m4_missing_as(missing_component, 'scores.respiration') }} AS INTEGER) AS respiration,
        CAST({{ m4_missing_as(missing_component, 'scores.coagulation') }} AS INTEGER) AS coagulation,
        CAST({{ m4_missing_as(missing_component, 'scores.liver') }} AS INTEGER) AS liver,
        CAST({{ m4_missing_as(missing_component, 'scores.cardiovascular') }} AS INTEGER) AS cardiovascular,
        CAST({{ m4_missing_as(missing_component, 'scores.cns') }} AS INTEGER) AS cns,
        CAST({{ m4_missing_as(missing_component, 'scores.renal') }} AS INTEGER) AS renal
    FROM icustays
    LEFT JOIN component_scores AS scores
        ON icustays.stay_id = scores.stay_id

)

SELECT * FROM first_day_sofa
{% endmacro %}
