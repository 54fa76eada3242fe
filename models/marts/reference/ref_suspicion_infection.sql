-- Reference: suspicion of infection for every systemic antibiotic prescription (task family
-- suspicion-infection). One row per subject_id, ab_id.
-- Seymour CW et al. Assessment of clinical criteria for sepsis. JAMA 2016;315:762-774.
-- Conventions are listed in ref_suspicion_infection.yml.

WITH suspicion AS (
    -- Macro suspicion_of_infection, shared with the suspicion_of_infection concept; the
    -- benchmark's tie-breaks differ from mimic-code's: antibiotics are numbered per patient
    -- (ab_id) by start, stop, drug name, hadm_id and stay_id (no route), NULLs first; the
    -- first culture is the earliest by date, time and specimen id, NULLs first.
    {{ suspicion_of_infection(
        antibiotic_order='starttime NULLS FIRST, stoptime NULLS FIRST, antibiotic NULLS FIRST,
            hadm_id NULLS FIRST, stay_id NULLS FIRST',
        culture_order='chartdate NULLS FIRST, charttime NULLS FIRST, micro_specimen_id NULLS FIRST',
    ) }}
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(ab_id AS BIGINT) AS ab_id,
    CAST(antibiotic AS {{ m4_type('string') }}) AS antibiotic,
    CAST(antibiotic_time AS {{ m4_type('datetime') }}) AS antibiotic_time,
    CAST(suspected_infection AS INTEGER) AS suspected_infection,
    CAST(suspected_infection_time AS {{ m4_type('datetime') }}) AS suspected_infection_time,
    CAST(culture_time AS {{ m4_type('datetime') }}) AS culture_time,
    CAST(specimen AS {{ m4_type('string') }}) AS specimen,
    CAST(positive_culture AS INTEGER) AS positive_culture
FROM suspicion
