-- Reference: lowest Glasgow Coma Scale in the first day of each ICU stay (task family gcs,
-- alias gcs-24h). One row per ICU stay.
-- Teasdale G, Jennett B. Assessment of coma and impaired consciousness. Lancet 1974;2:81-84.
-- Conventions are listed in ref_gcs_24h.yml.

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id, intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

gcs_in_window AS (
    -- Charted GCS (with mimic-code's 6-hour carry-forward and ETT sentinel) from 6 h
    -- before to 24 h after ICU admission, both ends inclusive.
    SELECT
        stays.stay_id,
        gcs.charttime,
        gcs.gcs,
        gcs.gcs_motor,
        gcs.gcs_verbal,
        gcs.gcs_eyes,
        gcs.gcs_unable
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_measurement__gcs') }} AS gcs
        ON stays.stay_id = gcs.stay_id
        AND gcs.charttime >= {{ dbt.dateadd('hour', -6, 'stays.intime') }}
        AND gcs.charttime <= {{ dbt.dateadd('day', 1, 'stays.intime') }}
),

lowest_gcs AS (
    -- The lowest total wins; ties go to the earliest chart time, then the lowest
    -- motor, verbal, eyes and unable flag. A NULL total sorts first, as in the original.
    SELECT
        stay_id,
        gcs,
        gcs_motor,
        gcs_verbal,
        gcs_eyes,
        ROW_NUMBER() OVER (
            PARTITION BY stay_id
            ORDER BY
                gcs NULLS FIRST,
                charttime NULLS LAST,
                gcs_motor NULLS LAST,
                gcs_verbal NULLS LAST,
                gcs_eyes NULLS LAST,
                gcs_unable NULLS LAST
        ) AS gcs_rank
    FROM gcs_in_window
)

SELECT
    CAST(stays.subject_id AS INTEGER) AS subject_id,
    CAST(stays.hadm_id AS INTEGER) AS hadm_id,
    CAST(stays.stay_id AS INTEGER) AS stay_id,
    -- A stay without GCS in the window is scored as normal (15 = 6 + 5 + 4).
    CAST(COALESCE(lowest.gcs, 15) AS INTEGER) AS gcs_min,
    CAST(COALESCE(lowest.gcs_motor, 6) AS INTEGER) AS gcs_motor,
    CAST(COALESCE(lowest.gcs_verbal, 5) AS INTEGER) AS gcs_verbal,
    CAST(COALESCE(lowest.gcs_eyes, 4) AS INTEGER) AS gcs_eyes
FROM icu_stays AS stays
LEFT JOIN lowest_gcs AS lowest
    ON stays.stay_id = lowest.stay_id
    AND lowest.gcs_rank = 1
