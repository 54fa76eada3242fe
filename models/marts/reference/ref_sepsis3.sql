-- Reference: Sepsis-3 onset of each ICU stay with a suspected infection (task family sepsis3).
-- One row per stay_id that has a suspected infection with a SOFA >= 2 around it.
-- Singer M et al. The Third International Consensus Definitions for Sepsis and Septic Shock
-- (Sepsis-3). JAMA 2016;315:801-810.
-- The benchmark's definition is exactly mimic-code's sepsis3 concept (as vendored by
-- m4-infra) with the flag as an integer, so the reference reads that concept.
-- Conventions are listed in ref_sepsis3.yml.

WITH sepsis AS (
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
    FROM {{ ref('int_mimiciv_sepsis__sepsis3') }}
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(antibiotic_time AS {{ m4_type('datetime') }}) AS antibiotic_time,
    CAST(culture_time AS {{ m4_type('datetime') }}) AS culture_time,
    CAST(suspected_infection_time AS {{ m4_type('datetime') }}) AS suspected_infection_time,
    CAST(sofa_time AS {{ m4_type('datetime') }}) AS sofa_time,
    CAST(sofa_score AS INTEGER) AS sofa_score,
    CAST(respiration AS INTEGER) AS respiration,
    CAST(coagulation AS INTEGER) AS coagulation,
    CAST(liver AS INTEGER) AS liver,
    CAST(cardiovascular AS INTEGER) AS cardiovascular,
    CAST(cns AS INTEGER) AS cns,
    CAST(renal AS INTEGER) AS renal,
    -- The concept keeps the flag as a boolean; the benchmark writes it as 0/1.
    CAST(sepsis3 AS INTEGER) AS sepsis3
FROM sepsis
