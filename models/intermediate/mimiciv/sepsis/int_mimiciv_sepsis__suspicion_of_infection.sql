-- Suspected infection: each antibiotic prescription, paired with a microbiology culture
-- taken within 72 hours before or 24 hours after it.
-- mimic-code: mimic-iv/concepts/sepsis/suspicion_of_infection.sql (m4-infra snapshot).
-- Seymour CW, et al. Assessment of clinical criteria for sepsis: for the Third
-- International Consensus Definitions for Sepsis and Septic Shock (Sepsis-3).
-- JAMA 2016;315:762-774.
{{ config(alias='suspicion_of_infection') }}

WITH antibiotics AS (

    -- Antibiotics numbered per patient in time order.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        antibiotic,
        starttime AS antibiotic_time,
        {{ m4_datetime_trunc('day', 'starttime') }} AS antibiotic_date,
        ROW_NUMBER() OVER (
            PARTITION BY subject_id
            ORDER BY
                starttime NULLS FIRST,
                stoptime NULLS FIRST,
                antibiotic NULLS FIRST,
                route NULLS FIRST,
                hadm_id NULLS FIRST,
                stay_id NULLS FIRST
        ) AS ab_id
    FROM {{ ref('int_mimiciv_medication__antibiotic') }}

),

microbiologyevents AS (

    SELECT
        micro_specimen_id,
        subject_id,
        hadm_id,
        chartdate,
        charttime,
        spec_type_desc,
        org_itemid,
        org_name
    FROM {{ ref('stg_mimiciv_hosp__microbiologyevents') }}

),

cultures AS (

    -- One row per specimen. It is positive when any row names an organism other than
    -- org_itemid 90856 (m4-infra snapshot; mimic-code HEAD also excludes 90760 and
    -- org_name 'CANCELLED'); a row without org_itemid is never positive.
    SELECT
        micro_specimen_id,
        MAX(subject_id) AS subject_id,
        MAX(hadm_id) AS hadm_id,
        CAST(MAX(chartdate) AS DATE) AS chartdate,
        MAX(charttime) AS charttime,
        MAX(spec_type_desc) AS spec_type_desc,
        MAX(
            CASE
                WHEN org_name IS NOT NULL AND org_itemid <> 90856 AND org_name <> '' THEN 1
                ELSE 0
            END
        ) AS positiveculture
    FROM microbiologyevents
    GROUP BY micro_specimen_id

),

cultures_with_time AS (

    SELECT * FROM cultures
    WHERE charttime IS NOT NULL

),

cultures_date_only AS (

    SELECT * FROM cultures
    WHERE charttime IS NULL

),

cultures_before_antibiotic AS (

    -- Cultures taken before the antibiotic: up to 72 hours before it, or, for a culture
    -- with only a date, on one of the 3 days before the antibiotic's day or that day.
    SELECT
        ab.subject_id,
        ab.ab_id,
        me.micro_specimen_id,
        me.charttime AS culture_time,
        me.positiveculture,
        me.spec_type_desc,
        me.chartdate,
        me.charttime
    FROM antibiotics AS ab
    INNER JOIN cultures_with_time AS me
        ON
            ab.subject_id = me.subject_id
            AND ab.antibiotic_time > me.charttime
            AND ab.antibiotic_time <= {{ dbt.dateadd('hour', 72, 'me.charttime') }}
    UNION ALL
    SELECT
        ab.subject_id,
        ab.ab_id,
        me.micro_specimen_id,
        CAST(me.chartdate AS {{ m4_type('datetime') }}) AS culture_time,
        me.positiveculture,
        me.spec_type_desc,
        me.chartdate,
        me.charttime
    FROM antibiotics AS ab
    INNER JOIN cultures_date_only AS me
        ON
            ab.subject_id = me.subject_id
            AND ab.antibiotic_date >= me.chartdate
            AND ab.antibiotic_date <= {{ dbt.dateadd('day', 3, 'me.chartdate') }}

),

cultures_after_antibiotic AS (

    -- Cultures taken after the antibiotic: up to 24 hours after it, or, for a culture
    -- with only a date, on the antibiotic's day or the day after.
    SELECT
        ab.subject_id,
        ab.ab_id,
        me.micro_specimen_id,
        me.charttime AS culture_time,
        me.positiveculture,
        me.spec_type_desc,
        me.chartdate,
        me.charttime
    FROM antibiotics AS ab
    INNER JOIN cultures_with_time AS me
        ON
            ab.subject_id = me.subject_id
            AND ab.antibiotic_time >= {{ dbt.dateadd('hour', -24, 'me.charttime') }}
            AND ab.antibiotic_time < me.charttime
    UNION ALL
    SELECT
        ab.subject_id,
        ab.ab_id,
        me.micro_specimen_id,
        CAST(me.chartdate AS {{ m4_type('datetime') }}) AS culture_time,
        me.positiveculture,
        me.spec_type_desc,
        me.chartdate,
        me.charttime
    FROM antibiotics AS ab
    INNER JOIN cultures_date_only AS me
        ON
            ab.subject_id = me.subject_id
            AND ab.antibiotic_date >= {{ dbt.dateadd('day', -1, 'me.chartdate') }}
            AND ab.antibiotic_date <= me.chartdate

),

first_culture_before AS (

    -- The earliest matching culture (by date, then time, timed ones first within a day;
    -- ties go to the lowest micro_specimen_id, where mimic-code leaves them open).
    SELECT
        subject_id,
        ab_id,
        culture_time AS last72_charttime,
        positiveculture AS last72_positiveculture,
        spec_type_desc AS last72_specimen,
        ROW_NUMBER() OVER (
            PARTITION BY subject_id, ab_id
            ORDER BY chartdate NULLS FIRST, charttime NULLS LAST, micro_specimen_id
        ) AS micro_seq
    FROM cultures_before_antibiotic

),

first_culture_after AS (

    SELECT
        subject_id,
        ab_id,
        culture_time AS next24_charttime,
        positiveculture AS next24_positiveculture,
        spec_type_desc AS next24_specimen,
        ROW_NUMBER() OVER (
            PARTITION BY subject_id, ab_id
            ORDER BY chartdate NULLS FIRST, charttime NULLS LAST, micro_specimen_id
        ) AS micro_seq
    FROM cultures_after_antibiotic

),

suspected_infections AS (

    -- Infection is suspected when either culture exists. Its time is the culture's when
    -- the culture came first, else the antibiotic's.
    SELECT
        ab.subject_id,
        ab.stay_id,
        ab.hadm_id,
        ab.ab_id,
        ab.antibiotic,
        ab.antibiotic_time,
        CASE
            WHEN bef.last72_specimen IS NULL AND aft.next24_specimen IS NULL THEN 0
            ELSE 1
        END AS suspected_infection,
        CASE
            WHEN bef.last72_specimen IS NULL AND aft.next24_specimen IS NULL THEN NULL
            ELSE COALESCE(bef.last72_charttime, ab.antibiotic_time)
        END AS suspected_infection_time,
        COALESCE(bef.last72_charttime, aft.next24_charttime) AS culture_time,
        COALESCE(bef.last72_specimen, aft.next24_specimen) AS specimen,
        COALESCE(bef.last72_positiveculture, aft.next24_positiveculture) AS positive_culture
    FROM antibiotics AS ab
    LEFT JOIN first_culture_after AS aft
        ON
            ab.subject_id = aft.subject_id
            AND ab.ab_id = aft.ab_id
            AND aft.micro_seq = 1
    LEFT JOIN first_culture_before AS bef
        ON
            ab.subject_id = bef.subject_id
            AND ab.ab_id = bef.ab_id
            AND bef.micro_seq = 1

)

SELECT * FROM suspected_infections
