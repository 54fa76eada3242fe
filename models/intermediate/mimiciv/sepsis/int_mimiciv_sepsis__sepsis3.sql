-- Sepsis-3 onset per ICU stay: the first suspected infection with a SOFA score of 2 or
-- more within 48 hours before to 24 hours after it.
-- mimic-code: mimic-iv/concepts/sepsis/sepsis3.sql (m4-infra snapshot).
-- Singer M, et al. The Third International Consensus Definitions for Sepsis and Septic
-- Shock (Sepsis-3). JAMA 2016;315:801-810.
{{ config(alias='sepsis3') }}

WITH sofa AS (

    -- Hourly SOFA (worst values of the preceding 24 hours) of at least 2. Baseline SOFA
    -- is assumed to be 0, so a score of 2 is an increase of 2.
    SELECT
        stay_id,
        starttime,
        endtime,
        respiration_24hours AS respiration,
        coagulation_24hours AS coagulation,
        liver_24hours AS liver,
        cardiovascular_24hours AS cardiovascular,
        cns_24hours AS cns,
        renal_24hours AS renal,
        sofa_24hours AS sofa_score
    FROM {{ ref('int_mimiciv_score__sofa') }}
    WHERE sofa_24hours >= 2

),

suspicion_of_infection AS (

    SELECT
        subject_id,
        stay_id,
        ab_id,
        antibiotic_time,
        culture_time,
        suspected_infection,
        suspected_infection_time
    FROM {{ ref('int_mimiciv_sepsis__suspicion_of_infection') }}
    WHERE stay_id IS NOT NULL

),

infections_with_organ_dysfunction AS (

    SELECT
        soi.subject_id,
        soi.stay_id,
        soi.antibiotic_time,
        soi.culture_time,
        soi.suspected_infection_time,
        sofa.endtime AS sofa_time,
        sofa.sofa_score,
        sofa.respiration,
        sofa.coagulation,
        sofa.liver,
        sofa.cardiovascular,
        sofa.cns,
        sofa.renal,
        sofa.sofa_score >= 2 AND soi.suspected_infection = 1 AS sepsis3,
        ROW_NUMBER() OVER (
            PARTITION BY soi.stay_id
            ORDER BY
                soi.suspected_infection_time NULLS FIRST,
                soi.antibiotic_time NULLS FIRST,
                soi.culture_time NULLS FIRST,
                sofa.endtime NULLS FIRST,
                soi.ab_id
        ) AS rn_sus
    FROM suspicion_of_infection AS soi
    INNER JOIN sofa
        ON
            soi.stay_id = sofa.stay_id
            AND sofa.endtime >= {{ dbt.dateadd('hour', -48, 'soi.suspected_infection_time') }}
            AND sofa.endtime <= {{ dbt.dateadd('hour', 24, 'soi.suspected_infection_time') }}

),

sepsis_onset AS (

    -- The earliest suspected infection (then antibiotic, culture and SOFA time) of the stay.
    SELECT
        subject_id,
        stay_id,
        antibiotic_time,
        culture_time,
        suspected_infection_time,
        sofa_time,
        sofa_score,
        respiration,
        coagulation,
        liver,
        cardiovascular,
        cns,
        renal,
        sepsis3
    FROM infections_with_organ_dysfunction
    WHERE rn_sus = 1

)

SELECT * FROM sepsis_onset
