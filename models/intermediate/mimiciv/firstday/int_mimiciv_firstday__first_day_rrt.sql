-- Renal replacement therapy in the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_rrt.sql (m4-infra snapshot).
{{ config(alias='first_day_rrt') }}

WITH icustays AS (

    SELECT
        subject_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_dialysis AS (

    -- RRT charted from 6 hours before to 24 hours after ICU admission; the distinct
    -- dialysis types are listed alphabetically (mimic-code leaves the order unspecified)
    SELECT
        ie.subject_id,
        ie.stay_id,
        MAX(rrt.dialysis_present) AS dialysis_present,
        MAX(rrt.dialysis_active) AS dialysis_active,
        STRING_AGG(DISTINCT rrt.dialysis_type, ', ' ORDER BY rrt.dialysis_type) AS dialysis_type
    FROM icustays AS ie
    LEFT JOIN {{ ref('int_mimiciv_treatment__rrt') }} AS rrt
        ON
            ie.stay_id = rrt.stay_id
            AND rrt.charttime >= {{ dbt.dateadd('hour', -6, 'ie.intime') }}
            AND rrt.charttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    GROUP BY ie.subject_id, ie.stay_id

)

SELECT * FROM first_day_dialysis
