-- ICU stay boundaries from charted heart rate: first and last heart rate (220045) per stay.
-- mimic-code: mimic-iv/concepts/demographics/icustay_times.sql.
{{ config(alias='icustay_times') }}

WITH icustays AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

heart_rate_bounds AS (

    SELECT
        stay_id,
        MIN(charttime) AS intime_hr,
        MAX(charttime) AS outtime_hr
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE itemid = 220045  -- Heart Rate
    GROUP BY stay_id

),

stay_times AS (

    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        hr.intime_hr,
        hr.outtime_hr
    FROM icustays AS ie
    LEFT JOIN heart_rate_bounds AS hr
        ON ie.stay_id = hr.stay_id

)

SELECT * FROM stay_times
