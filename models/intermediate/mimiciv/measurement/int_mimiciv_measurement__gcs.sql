-- Glasgow Coma Scale, one row per ICU stay and charttime with any GCS component.
-- mimic-code: mimic-iv/concepts/measurement/gcs.sql (m4-infra snapshot).
-- Teasdale G, Jennett B. Assessment of coma and impaired consciousness. A practical
-- scale. Lancet 1974;2(7872):81-84.
{{ config(alias='gcs') }}

WITH gcs_components AS (

    -- 'No Response-ETT' (intubated, verbal response not assessable) is coded as verbal 0
    SELECT
        subject_id,
        stay_id,
        charttime,
        MAX(CASE WHEN itemid = 223901 THEN valuenum END) AS gcs_motor,
        MAX(
            CASE
                WHEN itemid = 223900 AND value = 'No Response-ETT' THEN 0
                WHEN itemid = 223900 THEN valuenum
            END
        ) AS gcs_verbal,
        MAX(CASE WHEN itemid = 220739 THEN valuenum END) AS gcs_eyes,
        MAX(CASE WHEN itemid = 223900 AND value = 'No Response-ETT' THEN 1 ELSE 0 END) AS gcs_unable,
        ROW_NUMBER() OVER (PARTITION BY stay_id ORDER BY charttime) AS charting_seq
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        itemid IN (
            223900,  -- GCS - Verbal Response
            223901,  -- GCS - Motor Response
            220739   -- GCS - Eye Opening
        )
    GROUP BY subject_id, stay_id, charttime

),

with_previous AS (

    -- the stay's previous charting, if it was less than 6 hours earlier
    SELECT
        cur.subject_id,
        cur.stay_id,
        cur.charttime,
        cur.gcs_motor,
        cur.gcs_verbal,
        cur.gcs_eyes,
        cur.gcs_unable,
        prev.gcs_motor AS prev_gcs_motor,
        prev.gcs_verbal AS prev_gcs_verbal,
        prev.gcs_eyes AS prev_gcs_eyes
    FROM gcs_components AS cur
    LEFT JOIN gcs_components AS prev
        ON
            cur.stay_id = prev.stay_id
            AND cur.charting_seq = prev.charting_seq + 1
            AND prev.charttime > {{ dbt.dateadd('hour', -6, 'cur.charttime') }}

),

gcs_scored AS (

    -- An intubated patient (verbal 0 now, or verbal missing now and 0 before) is scored
    -- 15, as mimic-code does. After an intubated charting, missing components default
    -- to normal (motor 6, verbal 5, eyes 4); otherwise a missing component is carried
    -- forward from the previous charting within 6 hours, then defaulted to normal.
    SELECT
        subject_id,
        stay_id,
        charttime,
        CASE
            WHEN gcs_verbal = 0 THEN 15
            WHEN gcs_verbal IS NULL AND prev_gcs_verbal = 0 THEN 15
            WHEN prev_gcs_verbal = 0
                THEN COALESCE(gcs_motor, 6) + COALESCE(gcs_verbal, 5) + COALESCE(gcs_eyes, 4)
            ELSE
                COALESCE(gcs_motor, prev_gcs_motor, 6)
                + COALESCE(gcs_verbal, prev_gcs_verbal, 5)
                + COALESCE(gcs_eyes, prev_gcs_eyes, 4)
        END AS gcs,
        COALESCE(gcs_motor, prev_gcs_motor) AS gcs_motor,
        COALESCE(gcs_verbal, prev_gcs_verbal) AS gcs_verbal,
        COALESCE(gcs_eyes, prev_gcs_eyes) AS gcs_eyes,
        gcs_unable
    FROM with_previous

)

SELECT * FROM gcs_scored
