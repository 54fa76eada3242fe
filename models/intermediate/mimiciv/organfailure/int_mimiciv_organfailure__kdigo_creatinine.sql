-- Serum creatinine around each ICU stay with the lowest value of the previous 48 hours
-- and of the previous 7 days: the baselines of the KDIGO creatinine criteria.
-- mimic-code: mimic-iv/concepts/organfailure/kdigo_creatinine.sql (m4-infra snapshot).
{{ config(alias='kdigo_creatinine') }}

WITH icustays AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        intime,
        outtime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

creatinine_labs AS (

    -- Creatinine (50912); values above 150 mg/dL are errors.
    SELECT
        subject_id,
        charttime,
        valuenum
    FROM {{ ref('int_mimiciv_events__labevents_used') }}
    WHERE
        itemid = 50912
        AND valuenum IS NOT NULL
        AND valuenum <= 150

),

stay_creatinine AS (

    -- Values from 7 days before ICU admission to ICU discharge, averaged per charttime
    -- (matched on subject, so another admission's labs count too). A stay without any
    -- gets one row with NULL charttime.
    SELECT
        ie.hadm_id,
        ie.stay_id,
        le.charttime,
        AVG(le.valuenum) AS creat
    FROM icustays AS ie
    LEFT JOIN creatinine_labs AS le
        ON
            ie.subject_id = le.subject_id
            AND le.charttime >= {{ dbt.dateadd('day', -7, 'ie.intime') }}
            AND le.charttime <= ie.outtime
    GROUP BY
        ie.hadm_id,
        ie.stay_id,
        le.charttime

),

lowest_past_48hr AS (

    -- Lowest value in the 48 hours before (not at) each measurement.
    SELECT
        cr.stay_id,
        cr.charttime,
        MIN(prev.creat) AS creat_low_past_48hr
    FROM stay_creatinine AS cr
    LEFT JOIN stay_creatinine AS prev
        ON
            cr.stay_id = prev.stay_id
            AND prev.charttime < cr.charttime
            AND prev.charttime >= {{ dbt.dateadd('hour', -48, 'cr.charttime') }}
    GROUP BY
        cr.stay_id,
        cr.charttime

),

lowest_past_7day AS (

    -- Lowest value in the 7 days before (not at) each measurement.
    SELECT
        cr.stay_id,
        cr.charttime,
        MIN(prev.creat) AS creat_low_past_7day
    FROM stay_creatinine AS cr
    LEFT JOIN stay_creatinine AS prev
        ON
            cr.stay_id = prev.stay_id
            AND prev.charttime < cr.charttime
            AND prev.charttime >= {{ dbt.dateadd('day', -7, 'cr.charttime') }}
    GROUP BY
        cr.stay_id,
        cr.charttime

),

creatinine_baselines AS (

    SELECT
        cr.hadm_id,
        cr.stay_id,
        cr.charttime,
        cr.creat,
        l48.creat_low_past_48hr,
        l7.creat_low_past_7day
    FROM stay_creatinine AS cr
    LEFT JOIN lowest_past_48hr AS l48
        ON
            cr.stay_id = l48.stay_id
            AND cr.charttime = l48.charttime
    LEFT JOIN lowest_past_7day AS l7
        ON
            cr.stay_id = l7.stay_id
            AND cr.charttime = l7.charttime

)

SELECT * FROM creatinine_baselines
