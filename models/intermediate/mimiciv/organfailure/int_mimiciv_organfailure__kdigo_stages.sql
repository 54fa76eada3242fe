-- KDIGO acute kidney injury stage at each creatinine, urine-output and CRRT time of an
-- ICU stay, from each criterion separately and combined.
-- mimic-code: mimic-iv/concepts/organfailure/kdigo_stages.sql (m4-infra snapshot).
-- Kidney Disease: Improving Global Outcomes (KDIGO) Acute Kidney Injury Work Group.
-- KDIGO Clinical Practice Guideline for Acute Kidney Injury. Kidney Int Suppl 2012;2:1-138.
{{ config(alias='kdigo_stages') }}

WITH icustays AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

creatinine AS (

    SELECT
        stay_id,
        charttime,
        creat,
        creat_low_past_48hr,
        creat_low_past_7day
    FROM {{ ref('int_mimiciv_organfailure__kdigo_creatinine') }}

),

urine_output AS (

    SELECT
        stay_id,
        charttime,
        weight,
        uo_rt_6hr,
        uo_rt_12hr,
        uo_rt_24hr,
        uo_tm_6hr,
        uo_tm_12hr,
        uo_tm_24hr
    FROM {{ ref('int_mimiciv_organfailure__kdigo_uo') }}

),

crrt AS (

    SELECT
        stay_id,
        charttime,
        crrt_mode
    FROM {{ ref('int_mimiciv_treatment__crrt') }}

),

creatinine_stages AS (

    -- KDIGO's creatinine criterion (macros/mimiciv/kdigo_stage_rules.sql).
    SELECT
        stay_id,
        charttime,
        creat_low_past_7day,
        creat_low_past_48hr,
        creat,
        {{ kdigo_creatinine_stage('creat', 'creat_low_past_48hr', 'creat_low_past_7day') }} AS aki_stage_creat
    FROM creatinine

),

urine_output_stages AS (

    -- KDIGO's urine-output criterion (macros/mimiciv/kdigo_stage_rules.sql).
    SELECT
        uo.stay_id,
        uo.charttime,
        uo.weight,
        uo.uo_rt_6hr,
        uo.uo_rt_12hr,
        uo.uo_rt_24hr,
        {{ kdigo_urine_output_stage('uo', 'ie.intime') }} AS aki_stage_uo
    FROM urine_output AS uo
    INNER JOIN icustays AS ie
        ON uo.stay_id = ie.stay_id

),

crrt_stages AS (

    -- Any charted CRRT mode is stage 3.
    SELECT
        stay_id,
        charttime,
        CASE WHEN charttime IS NOT NULL THEN 3 END AS aki_stage_crrt
    FROM crrt
    WHERE crrt_mode IS NOT NULL

),

stage_times AS (

    SELECT stay_id, charttime FROM creatinine_stages
    UNION DISTINCT
    SELECT stay_id, charttime FROM urine_output_stages
    UNION DISTINCT
    SELECT stay_id, charttime FROM crrt_stages

),

stages AS (

    -- aki_stage is the worst of the three at that time (a missing criterion counts 0);
    -- aki_stage_smoothed is the worst aki_stage of the last 6 hours. mimic-code
    -- partitions that window by subject_id while ordering by time since this stay's
    -- intime, which is kept here.
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        tm.charttime,
        cr.creat_low_past_7day,
        cr.creat_low_past_48hr,
        cr.creat,
        cr.aki_stage_creat,
        uo.uo_rt_6hr,
        uo.uo_rt_12hr,
        uo.uo_rt_24hr,
        uo.aki_stage_uo,
        crrt.aki_stage_crrt,
        GREATEST(
            COALESCE(cr.aki_stage_creat, 0),
            COALESCE(uo.aki_stage_uo, 0),
            COALESCE(crrt.aki_stage_crrt, 0)
        ) AS aki_stage,
        MAX(
            GREATEST(
                COALESCE(cr.aki_stage_creat, 0),
                COALESCE(uo.aki_stage_uo, 0),
                COALESCE(crrt.aki_stage_crrt, 0)
            )
        ) OVER (
            PARTITION BY ie.subject_id
            ORDER BY {{ dbt.datediff('ie.intime', 'tm.charttime', 'microsecond') }} / 1000000.0 NULLS FIRST
            RANGE BETWEEN 21600 PRECEDING AND CURRENT ROW
        ) AS aki_stage_smoothed
    FROM icustays AS ie
    LEFT JOIN stage_times AS tm
        ON ie.stay_id = tm.stay_id
    LEFT JOIN creatinine_stages AS cr
        ON
            ie.stay_id = cr.stay_id
            AND tm.charttime = cr.charttime
    LEFT JOIN urine_output_stages AS uo
        ON
            ie.stay_id = uo.stay_id
            AND tm.charttime = uo.charttime
    LEFT JOIN crrt_stages AS crrt
        ON
            ie.stay_id = crrt.stay_id
            AND tm.charttime = crrt.charttime

)

SELECT * FROM stages
