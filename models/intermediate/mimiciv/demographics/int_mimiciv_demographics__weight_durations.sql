-- Periods of time during which each charted weight applies, per ICU stay.
-- mimic-code: mimic-iv/concepts/demographics/weight_durations.sql.
{{ config(alias='weight_durations') }}

WITH icustays AS (

    SELECT
        stay_id,
        intime,
        outtime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

charted_weights AS (

    SELECT
        stay_id,
        charttime,
        CASE WHEN itemid = 226512 THEN 'admit' ELSE 'daily' END AS weight_type,
        valuenum AS weight
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        itemid IN (
            226512,  -- Admission Weight (Kg)
            224639   -- Daily Weight
        )
        AND valuenum > 0

),

numbered_weights AS (

    SELECT
        stay_id,
        charttime,
        weight_type,
        weight,
        ROW_NUMBER() OVER (
            PARTITION BY stay_id, weight_type ORDER BY charttime, weight
        ) AS weight_seq
    FROM charted_weights

),

weight_starts AS (

    -- The first admission weight is taken to hold from two hours before ICU admission.
    SELECT
        wt.stay_id,
        ie.outtime,
        wt.weight_type,
        CASE
            WHEN wt.weight_type = 'admit' AND wt.weight_seq = 1
                THEN {{ dbt.dateadd('hour', -2, 'ie.intime') }}
            ELSE wt.charttime
        END AS starttime,
        wt.weight
    FROM numbered_weights AS wt
    INNER JOIN icustays AS ie
        ON wt.stay_id = ie.stay_id

),

weight_periods AS (

    -- Each weight holds until the next one starts, the last until two hours after ICU
    -- discharge. Weights starting at the same time are ordered daily before admit (then
    -- by weight), so the daily one gets a zero-length period; mimic-code leaves this
    -- order unspecified.
    SELECT
        stay_id,
        starttime,
        COALESCE(
            LEAD(starttime) OVER (
                PARTITION BY stay_id ORDER BY starttime NULLS FIRST, weight_type DESC, weight
            ),
            {{ dbt.dateadd('hour', 2, 'outtime') }}
        ) AS endtime,
        weight,
        weight_type
    FROM weight_starts

),

first_periods AS (

    SELECT
        stay_id,
        starttime,
        weight,
        weight_type,
        ROW_NUMBER() OVER (
            PARTITION BY stay_id ORDER BY starttime NULLS FIRST, weight_type DESC, weight
        ) AS period_seq
    FROM weight_periods

),

backfilled_periods AS (

    -- When the first weight was charted after ICU admission, it is also applied
    -- backwards from two hours before admission until it was charted.
    SELECT
        ie.stay_id,
        {{ dbt.dateadd('hour', -2, 'ie.intime') }} AS starttime,
        fp.starttime AS endtime,
        fp.weight,
        fp.weight_type
    FROM icustays AS ie
    INNER JOIN first_periods AS fp
        ON
            ie.stay_id = fp.stay_id
            AND fp.period_seq = 1
            AND ie.intime < fp.starttime

),

all_periods AS (

    SELECT stay_id, starttime, endtime, weight, weight_type FROM weight_periods
    UNION ALL
    SELECT stay_id, starttime, endtime, weight, weight_type FROM backfilled_periods

)

SELECT * FROM all_periods
