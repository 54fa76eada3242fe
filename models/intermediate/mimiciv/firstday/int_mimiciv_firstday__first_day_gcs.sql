-- Lowest GCS of the first ICU day with the components charted with it, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_gcs.sql (m4-infra snapshot).
{{ config(alias='first_day_gcs') }}

WITH icustays AS (

    SELECT
        subject_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_gcs_ranked AS (

    -- GCS from 6 hours before to 24 hours after ICU admission, lowest first; among
    -- equally low totals the earliest charting wins (the gcs model has one row per stay and
    -- charttime, so no ties remain). m4-infra orders by gcs only and mostly, not always,
    -- ends up with the earliest.
    SELECT
        ie.stay_id,
        g.gcs,
        g.gcs_motor,
        g.gcs_verbal,
        g.gcs_eyes,
        g.gcs_unable,
        ROW_NUMBER() OVER (
            PARTITION BY ie.stay_id ORDER BY g.gcs NULLS FIRST, g.charttime
        ) AS gcs_rank
    FROM icustays AS ie
    INNER JOIN {{ ref('int_mimiciv_measurement__gcs') }} AS g
        ON
            ie.stay_id = g.stay_id
            AND g.charttime >= {{ dbt.dateadd('hour', -6, 'ie.intime') }}
            AND g.charttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}

),

lowest_gcs AS (

    SELECT
        ie.subject_id,
        ie.stay_id,
        gs.gcs AS gcs_min,
        gs.gcs_motor,
        gs.gcs_verbal,
        gs.gcs_eyes,
        gs.gcs_unable
    FROM icustays AS ie
    LEFT JOIN first_day_gcs_ranked AS gs
        ON
            ie.stay_id = gs.stay_id
            AND gs.gcs_rank = 1

)

SELECT * FROM lowest_gcs
