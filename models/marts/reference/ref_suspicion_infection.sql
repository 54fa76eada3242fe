-- Reference: suspicion of infection for every systemic antibiotic prescription (task family
-- suspicion-infection). One row per subject_id, ab_id.
-- Seymour CW et al. Assessment of clinical criteria for sepsis. JAMA 2016;315:762-774.
-- Conventions are listed in ref_suspicion_infection.yml.

WITH antibiotics AS (
    -- Systemic antibiotic prescriptions, numbered per patient (ab_id) by start, stop, drug
    -- name, hadm_id and stay_id, NULLs first.
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
                hadm_id NULLS FIRST,
                stay_id NULLS FIRST
        ) AS ab_id
    FROM {{ ref('int_mimiciv_medication__antibiotic') }}
),

cultures AS (
    -- One row per specimen; positive when any organism row names an organism other than
    -- org_itemid 90856 (an org_itemid NULL or org_name '' does not count).
    SELECT
        micro_specimen_id,
        MAX(subject_id) AS subject_id,
        {{ dbt.safe_cast('MAX(chartdate)', 'DATE') }} AS chartdate,
        MAX(charttime) AS charttime,
        MAX(spec_type_desc) AS spec_type_desc,
        MAX(
            CASE
                WHEN org_name IS NOT NULL AND org_itemid <> 90856 AND org_name <> '' THEN 1
                ELSE 0
            END
        ) AS positive_culture
    FROM {{ ref('stg_mimiciv_hosp__microbiologyevents') }}
    GROUP BY micro_specimen_id
),

cultures_before_antibiotic AS (
    -- Cultures taken up to 72 hours before the antibiotic (start exclusive of the culture
    -- time itself); a culture with only a date matches antibiotics dated 0-3 days after it.
    SELECT
        antibiotics.subject_id,
        antibiotics.ab_id,
        cultures.micro_specimen_id,
        cultures.chartdate,
        cultures.charttime,
        cultures.charttime AS culture_time,
        cultures.positive_culture,
        cultures.spec_type_desc AS specimen
    FROM antibiotics
    INNER JOIN cultures
        ON antibiotics.subject_id = cultures.subject_id
        AND cultures.charttime IS NOT NULL
        AND antibiotics.antibiotic_time > cultures.charttime
        AND antibiotics.antibiotic_time <= {{ dbt.dateadd('hour', 72, 'cultures.charttime') }}
    UNION ALL
    SELECT
        antibiotics.subject_id,
        antibiotics.ab_id,
        cultures.micro_specimen_id,
        cultures.chartdate,
        cultures.charttime,
        CAST(cultures.chartdate AS {{ m4_type('datetime') }}) AS culture_time,
        cultures.positive_culture,
        cultures.spec_type_desc AS specimen
    FROM antibiotics
    INNER JOIN cultures
        ON antibiotics.subject_id = cultures.subject_id
        AND cultures.charttime IS NULL
        AND antibiotics.antibiotic_date >= cultures.chartdate
        AND antibiotics.antibiotic_date <= {{ dbt.dateadd('day', 3, 'cultures.chartdate') }}
),

cultures_after_antibiotic AS (
    -- Cultures taken up to 24 hours after the antibiotic; a culture with only a date matches
    -- antibiotics dated 0-1 day before it.
    SELECT
        antibiotics.subject_id,
        antibiotics.ab_id,
        cultures.micro_specimen_id,
        cultures.chartdate,
        cultures.charttime,
        cultures.charttime AS culture_time,
        cultures.positive_culture,
        cultures.spec_type_desc AS specimen
    FROM antibiotics
    INNER JOIN cultures
        ON antibiotics.subject_id = cultures.subject_id
        AND cultures.charttime IS NOT NULL
        AND antibiotics.antibiotic_time >= {{ dbt.dateadd('hour', -24, 'cultures.charttime') }}
        AND antibiotics.antibiotic_time < cultures.charttime
    UNION ALL
    SELECT
        antibiotics.subject_id,
        antibiotics.ab_id,
        cultures.micro_specimen_id,
        cultures.chartdate,
        cultures.charttime,
        CAST(cultures.chartdate AS {{ m4_type('datetime') }}) AS culture_time,
        cultures.positive_culture,
        cultures.spec_type_desc AS specimen
    FROM antibiotics
    INNER JOIN cultures
        ON antibiotics.subject_id = cultures.subject_id
        AND cultures.charttime IS NULL
        AND antibiotics.antibiotic_date >= {{ dbt.dateadd('day', -1, 'cultures.chartdate') }}
        AND antibiotics.antibiotic_date <= cultures.chartdate
),

first_culture_before AS (
    -- The earliest matching culture by date, time and specimen id (NULLs first).
    SELECT *
    FROM cultures_before_antibiotic
    QUALIFY ROW_NUMBER() OVER (
        PARTITION BY subject_id, ab_id
        ORDER BY chartdate NULLS FIRST, charttime NULLS FIRST, micro_specimen_id NULLS FIRST
    ) = 1
),

first_culture_after AS (
    SELECT *
    FROM cultures_after_antibiotic
    QUALIFY ROW_NUMBER() OVER (
        PARTITION BY subject_id, ab_id
        ORDER BY chartdate NULLS FIRST, charttime NULLS FIRST, micro_specimen_id NULLS FIRST
    ) = 1
)

SELECT
    CAST(antibiotics.subject_id AS INTEGER) AS subject_id,
    CAST(antibiotics.stay_id AS INTEGER) AS stay_id,
    CAST(antibiotics.hadm_id AS INTEGER) AS hadm_id,
    CAST(antibiotics.ab_id AS BIGINT) AS ab_id,
    CAST(antibiotics.antibiotic AS {{ m4_type('string') }}) AS antibiotic,
    CAST(antibiotics.antibiotic_time AS {{ m4_type('datetime') }}) AS antibiotic_time,
    CAST(
        CASE WHEN before.specimen IS NULL AND after.specimen IS NULL THEN 0 ELSE 1 END AS INTEGER
    ) AS suspected_infection,
    -- Onset: the culture time when the culture came first, else the antibiotic time.
    CAST(
        CASE
            WHEN before.specimen IS NULL AND after.specimen IS NULL THEN NULL
            ELSE COALESCE(before.culture_time, antibiotics.antibiotic_time)
        END AS {{ m4_type('datetime') }}
    ) AS suspected_infection_time,
    -- A culture before the antibiotic is preferred over one after it.
    CAST(COALESCE(before.culture_time, after.culture_time) AS {{ m4_type('datetime') }}) AS culture_time,
    CAST(COALESCE(before.specimen, after.specimen) AS {{ m4_type('string') }}) AS specimen,
    CAST(COALESCE(before.positive_culture, after.positive_culture) AS INTEGER) AS positive_culture
FROM antibiotics
LEFT JOIN first_culture_after AS after
    ON antibiotics.subject_id = after.subject_id
    AND antibiotics.ab_id = after.ab_id
LEFT JOIN first_culture_before AS before
    ON antibiotics.subject_id = before.subject_id
    AND antibiotics.ab_id = before.ab_id
