-- Average height (cm) charted in the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_height.sql (m4-infra snapshot).
{{ config(alias='first_day_height') }}

WITH icustays AS (

    SELECT
        subject_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_heights AS (

    -- heights from 6 hours before to 24 hours after ICU admission; the average is cast
    -- to DECIMAL(18, 3) and rounded to 2 places as in mimic-code
    SELECT
        ie.subject_id,
        ie.stay_id,
        ROUND({{ dbt.safe_cast("AVG(ht.height)", "DECIMAL(18, 3)") }}, 2) AS height
    FROM icustays AS ie
    LEFT JOIN {{ ref('int_mimiciv_measurement__height') }} AS ht
        ON
            ie.stay_id = ht.stay_id
            AND ht.charttime >= {{ dbt.dateadd('hour', -6, 'ie.intime') }}
            AND ht.charttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    GROUP BY ie.subject_id, ie.stay_id

)

SELECT * FROM first_day_heights
