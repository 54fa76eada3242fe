-- Lowest, highest and mean vital signs of the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_vitalsign.sql (m4-infra snapshot).
{{ config(alias='first_day_vitalsign') }}

{%- set measures = ['heart_rate', 'sbp', 'dbp', 'mbp', 'resp_rate', 'temperature', 'spo2', 'glucose'] %}

WITH icustays AS (

    SELECT
        subject_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_vitals AS (

    -- vital signs from 6 hours before to 24 hours after ICU admission; means are over
    -- charttimes (each already the average of the values charted at that time)
    SELECT
        ie.subject_id,
        ie.stay_id
        {%- for measure in measures %},
        MIN(vs.{{ measure }}) AS {{ measure }}_min,
        MAX(vs.{{ measure }}) AS {{ measure }}_max,
        AVG(vs.{{ measure }}) AS {{ measure }}_mean
        {%- endfor %}
    FROM icustays AS ie
    LEFT JOIN {{ ref('int_mimiciv_measurement__vitalsign') }} AS vs
        ON
            ie.stay_id = vs.stay_id
            AND vs.charttime >= {{ dbt.dateadd('hour', -6, 'ie.intime') }}
            AND vs.charttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    GROUP BY ie.subject_id, ie.stay_id

)

SELECT * FROM first_day_vitals
