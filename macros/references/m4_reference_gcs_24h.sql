{#-
  The lowest-GCS reference's SQL (model ref_gcs_24h), under its conventions as declared in
  models/marts/reference/ref_gcs_24h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Teasdale G, Jennett B. Lancet 1974;2:81-84.
-#}
{% macro m4_reference_gcs_24h(flip={}) %}
{%- set conventions = m4_conventions('ref_gcs_24h', ['window', 'null_total', 'missing_gcs'], flip) -%}

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id, intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

gcs_in_window AS (
    -- Charted GCS (with mimic-code's 6-hour carry-forward and ETT sentinel) in the window
    -- (documented: from 6 h before to 24 h after ICU admission, both ends inclusive).
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
        AND {{ m4_in_window('gcs.charttime', 'stays.intime', conventions.window) }}
),

lowest_gcs AS (
    -- The lowest total wins; ties go to the earliest chart time, then the lowest
    -- motor, verbal, eyes and unable flag. A NULL total sorts first, as in the original
    -- (convention null_total).
    SELECT
        stay_id,
        gcs,
        gcs_motor,
        gcs_verbal,
        gcs_eyes,
        ROW_NUMBER() OVER (
            PARTITION BY stay_id
            ORDER BY
                gcs NULLS {{ conventions.null_total.nulls }},
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
    -- A stay without GCS in the window: as convention missing_gcs reads it (documented: normal,
    -- 15 = 6 + 5 + 4).
    CAST({{ m4_missing_as(conventions.missing_gcs, 'lowest.gcs', 15) }} AS INTEGER) AS gcs_min,
    CAST({{ m4_missing_as(conventions.missing_gcs, 'lowest.gcs_motor', 6) }} AS INTEGER) AS gcs_motor,
    CAST({{ m4_missing_as(conventions.missing_gcs, 'lowest.gcs_verbal', 5) }} AS INTEGER) AS gcs_verbal,
    CAST({{ m4_missing_as(conventions.missing_gcs, 'lowest.gcs_eyes', 4) }} AS INTEGER) AS gcs_eyes
FROM icu_stays AS stays
LEFT JOIN lowest_gcs AS lowest
    ON stays.stay_id = lowest.stay_id
    AND lowest.gcs_rank = 1
{% endmacro %}
