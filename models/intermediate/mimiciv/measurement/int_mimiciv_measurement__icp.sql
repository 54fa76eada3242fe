-- Intracranial pressure, one row per subject, stay and charttime.
-- mimic-code: mimic-iv/concepts/measurement/icp.sql.
{{ config(alias='icp') }}

WITH icp_values AS (

    -- plausible pressures are strictly between 0 and 100 mmHg; others become NULL
    SELECT
        subject_id,
        stay_id,
        charttime,
        CASE WHEN valuenum > 0 AND valuenum < 100 THEN valuenum END AS icp
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        itemid IN (
            220765,  -- Intra Cranial Pressure
            227989   -- Intra Cranial Pressure #2
        )

),

icp_per_charttime AS (

    SELECT
        subject_id,
        stay_id,
        charttime,
        MAX(icp) AS icp
    FROM icp_values
    GROUP BY subject_id, stay_id, charttime

)

SELECT * FROM icp_per_charttime
