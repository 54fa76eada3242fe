-- Admission, average, lowest and highest weight (kg) of the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_weight.sql (m4-infra snapshot).
{{ config(alias='first_day_weight') }}

WITH icustays AS (

    SELECT
        subject_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_weights AS (

    -- every weight period of the stay that starts by 24 hours after ICU admission
    -- (averages are over periods, not time-weighted)
    SELECT
        ie.subject_id,
        ie.stay_id,
        AVG(CASE WHEN wt.weight_type = 'admit' THEN wt.weight END) AS weight_admit,
        AVG(wt.weight) AS weight,
        MIN(wt.weight) AS weight_min,
        MAX(wt.weight) AS weight_max
    FROM icustays AS ie
    LEFT JOIN {{ ref('int_mimiciv_demographics__weight_durations') }} AS wt
        ON
            ie.stay_id = wt.stay_id
            AND wt.starttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    GROUP BY ie.subject_id, ie.stay_id

)

SELECT * FROM first_day_weights
