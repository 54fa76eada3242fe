-- Sequential Organ Failure Assessment (SOFA) over the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_sofa.sql (m4-infra snapshot).
-- Vincent JL et al. The SOFA (Sepsis-related Organ Failure Assessment) score to describe
-- organ dysfunction/failure. Intensive Care Med 1996;22(7):707-710.
{{ config(alias='first_day_sofa') }}

{%- set vasopressors = ['norepinephrine', 'epinephrine', 'dobutamine', 'dopamine'] %}

WITH icustays AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

vasopressor_doses AS (

    -- infusions started from 6 hours before to 24 hours after ICU admission
    {%- for drug in vasopressors %}
    SELECT
        ie.stay_id,
        '{{ drug }}' AS treatment,
        mv.vaso_rate AS rate
    FROM icustays AS ie
    INNER JOIN {{ ref('int_mimiciv_medication__' ~ drug) }} AS mv
        ON
            ie.stay_id = mv.stay_id
            AND mv.starttime >= {{ dbt.dateadd('hour', -6, 'ie.intime') }}
            AND mv.starttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    {%- if not loop.last %}
    UNION ALL
    {%- endif %}
    {%- endfor %}

),

highest_vasopressor_rates AS (

    SELECT
        ie.stay_id,
        MAX(CASE WHEN v.treatment = 'norepinephrine' THEN v.rate END) AS rate_norepinephrine,
        MAX(CASE WHEN v.treatment = 'epinephrine' THEN v.rate END) AS rate_epinephrine,
        MAX(CASE WHEN v.treatment = 'dopamine' THEN v.rate END) AS rate_dopamine,
        MAX(CASE WHEN v.treatment = 'dobutamine' THEN v.rate END) AS rate_dobutamine
    FROM icustays AS ie
    LEFT JOIN vasopressor_doses AS v
        ON ie.stay_id = v.stay_id
    GROUP BY ie.stay_id

),

first_day_pao2fio2 AS (

    -- PaO2/FiO2 of every blood gas of the patient in the first day (any specimen type),
    -- flagged when taken during invasive ventilation
    SELECT
        ie.stay_id,
        bg.pao2fio2ratio,
        CASE WHEN vd.stay_id IS NOT NULL THEN 1 ELSE 0 END AS isvent
    FROM icustays AS ie
    LEFT JOIN {{ ref('int_mimiciv_measurement__bg') }} AS bg
        ON
            ie.subject_id = bg.subject_id
            AND bg.charttime >= {{ dbt.dateadd('hour', -6, 'ie.intime') }}
            AND bg.charttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    LEFT JOIN {{ ref('int_mimiciv_treatment__ventilation') }} AS vd
        ON
            ie.stay_id = vd.stay_id
            AND {{ during_invasive_ventilation('bg.charttime', 'vd') }}
            AND vd.ventilation_status = 'InvasiveVent'

),

lowest_pao2fio2 AS (

    SELECT
        stay_id,
        MIN(CASE WHEN isvent = 0 THEN pao2fio2ratio END) AS pao2fio2_novent_min,
        MIN(CASE WHEN isvent = 1 THEN pao2fio2ratio END) AS pao2fio2_vent_min
    FROM first_day_pao2fio2
    GROUP BY stay_id

),

score_components AS (

    SELECT
        ie.stay_id,
        v.mbp_min,
        mv.rate_norepinephrine,
        mv.rate_epinephrine,
        mv.rate_dopamine,
        mv.rate_dobutamine,
        l.creatinine_max,
        l.bilirubin_total_max AS bilirubin_max,
        l.platelets_min AS platelet_min,
        pf.pao2fio2_novent_min,
        pf.pao2fio2_vent_min,
        uo.urineoutput,
        gcs.gcs_min
    FROM icustays AS ie
    LEFT JOIN highest_vasopressor_rates AS mv
        ON ie.stay_id = mv.stay_id
    LEFT JOIN lowest_pao2fio2 AS pf
        ON ie.stay_id = pf.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS v
        ON ie.stay_id = v.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS l
        ON ie.stay_id = l.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS uo
        ON ie.stay_id = uo.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS gcs
        ON ie.stay_id = gcs.stay_id

),

component_scores AS (

    -- Each organ scores 0-4; a component without data is NULL (and counts 0 in the total).
    SELECT
        stay_id,
        -- respiration: PaO2/FiO2 < 200 and < 100 count only while invasively ventilated
        {{ sofa_respiration_score('pao2fio2_vent_min', 'pao2fio2_novent_min') }} AS respiration,
        {{ sofa_coagulation_score('platelet_min') }} AS coagulation,
        {{ sofa_liver_score('bilirubin_max') }} AS liver,
        -- cardiovascular: as in mimic-code, any epinephrine or norepinephrine (<= 0.1) scores 3
        {{ sofa_cardiovascular_score('mbp_min') }} AS cardiovascular,
        {{ sofa_cns_score('gcs_min') }} AS cns,
        -- renal: creatinine or first-day urine output
        {{ sofa_renal_score('creatinine_max', 'urineoutput') }} AS renal
    FROM score_components

),

first_day_sofa AS (

    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        COALESCE(s.respiration, 0)
        + COALESCE(s.coagulation, 0)
        + COALESCE(s.liver, 0)
        + COALESCE(s.cardiovascular, 0)
        + COALESCE(s.cns, 0)
        + COALESCE(s.renal, 0) AS sofa,
        s.respiration,
        s.coagulation,
        s.liver,
        s.cardiovascular,
        s.cns,
        s.renal
    FROM icustays AS ie
    LEFT JOIN component_scores AS s
        ON ie.stay_id = s.stay_id

)

SELECT * FROM first_day_sofa
