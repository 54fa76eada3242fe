-- Total urine output (mL) of the first 24 hours of the ICU stay, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_urine_output.sql.
{{ config(alias='first_day_urine_output') }}

WITH icustays AS (

    SELECT
        subject_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_urine AS (

    -- from ICU admission (inclusive) to 24 hours later (inclusive); NULL when none charted
    SELECT
        ie.subject_id,
        ie.stay_id,
        SUM(uo.urineoutput) AS urineoutput
    FROM icustays AS ie
    LEFT JOIN {{ ref('int_mimiciv_measurement__urine_output') }} AS uo
        ON
            ie.stay_id = uo.stay_id
            AND uo.charttime >= ie.intime
            AND uo.charttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    GROUP BY ie.subject_id, ie.stay_id

)

SELECT * FROM first_day_urine
