-- Reference: ventilation episodes of each ICU stay, numbered in time order (task family
-- ventilation). One row per stay_id, ventilation_seq.
-- The episodes are exactly mimic-code's ventilation concept (as vendored by m4-infra); the
-- benchmark adds ventilation_seq so that rows can be matched. Conventions are listed in
-- ref_ventilation.yml.

WITH episodes AS (
    SELECT stay_id, starttime, endtime, ventilation_status
    FROM {{ ref('int_mimiciv_treatment__ventilation') }}
),

numbered_episodes AS (
    -- Episodes of a stay are disjoint runs of chartings, so their start times are distinct.
    SELECT
        stay_id,
        ROW_NUMBER() OVER (PARTITION BY stay_id ORDER BY starttime) AS ventilation_seq,
        starttime,
        endtime,
        ventilation_status
    FROM episodes
)

SELECT
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(ventilation_seq AS BIGINT) AS ventilation_seq,
    CAST(starttime AS {{ m4_type('datetime') }}) AS starttime,
    CAST(endtime AS {{ m4_type('datetime') }}) AS endtime,
    CAST(ventilation_status AS {{ m4_type('string') }}) AS ventilation_status
FROM numbered_episodes
