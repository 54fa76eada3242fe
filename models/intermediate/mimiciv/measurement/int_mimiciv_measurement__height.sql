-- Charted height in cm, kept between 120 and 230 cm.
-- mimic-code: mimic-iv/concepts/measurement/height.sql (m4-infra snapshot).
{{ config(alias='height') }}

WITH height_cm AS (

    SELECT
        subject_id,
        stay_id,
        charttime,
        ROUND({{ dbt.safe_cast("valuenum", "DECIMAL(18, 3)") }}, 2) AS height
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        itemid = 226730  -- Height (cm)
        AND valuenum IS NOT NULL

),

height_inches AS (

    SELECT
        subject_id,
        charttime,
        ROUND({{ dbt.safe_cast("valuenum * 2.54", "DECIMAL(18, 3)") }}, 2) AS height
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        itemid = 226707  -- Height (inches)
        AND valuenum IS NOT NULL

),

heights AS (

    -- Centimetres win over inches charted at the same time. As in mimic-code, the
    -- identifiers and time are taken from the centimetre row only, so a height charted
    -- only in inches keeps its value but has NULL subject_id, stay_id and charttime.
    SELECT
        cm.subject_id,
        cm.stay_id,
        cm.charttime,
        COALESCE(cm.height, inches.height) AS height
    FROM height_cm AS cm
    FULL OUTER JOIN height_inches AS inches
        ON
            cm.subject_id = inches.subject_id
            AND cm.charttime = inches.charttime

),

plausible_heights AS (

    SELECT
        subject_id,
        stay_id,
        charttime,
        height
    FROM heights
    WHERE height > 120 AND height < 230

)

SELECT * FROM plausible_heights
