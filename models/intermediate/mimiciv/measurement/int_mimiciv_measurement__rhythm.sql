-- Heart rhythm and ectopy (text values), one row per subject and charttime.
-- mimic-code: mimic-iv/concepts/measurement/rhythm.sql.
{{ config(alias='rhythm') }}

WITH rhythm_rows AS (

    SELECT
        subject_id,
        charttime,
        itemid,
        value
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        stay_id IS NOT NULL
        AND itemid IN (
            220048,  -- Heart Rhythm
            224650,  -- Ectopy Type 1
            224651,  -- Ectopy Frequency 1
            226479,  -- Ectopy Type 2
            226480   -- Ectopy Frequency 2
        )

),

rhythm_per_charttime AS (

    SELECT
        subject_id,
        charttime,
        MAX(CASE WHEN itemid = 220048 THEN value END) AS heart_rhythm,
        MAX(CASE WHEN itemid = 224650 THEN value END) AS ectopy_type,
        MAX(CASE WHEN itemid = 224651 THEN value END) AS ectopy_frequency,
        MAX(CASE WHEN itemid = 226479 THEN value END) AS ectopy_type_secondary,
        MAX(CASE WHEN itemid = 226480 THEN value END) AS ectopy_frequency_secondary
    FROM rhythm_rows
    GROUP BY subject_id, charttime

)

SELECT * FROM rhythm_per_charttime
