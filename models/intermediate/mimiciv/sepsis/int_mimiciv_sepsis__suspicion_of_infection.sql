-- Suspected infection: each antibiotic prescription, paired with a microbiology culture
-- taken within 72 hours before or 24 hours after it (macro suspicion_of_infection, shared
-- with ref_suspicion_infection).
-- mimic-code: mimic-iv/concepts/sepsis/suspicion_of_infection.sql (m4-infra snapshot).
-- Seymour CW, et al. Assessment of clinical criteria for sepsis: for the Third
-- International Consensus Definitions for Sepsis and Septic Shock (Sepsis-3).
-- JAMA 2016;315:762-774.
{{ config(alias='suspicion_of_infection') }}

-- Antibiotics numbered per patient in time order, then drug name and route (as mimic-code).
-- The earliest matching culture wins (by date, then time, timed ones first within a day;
-- ties go to the lowest micro_specimen_id, where mimic-code leaves them open). Cultures are
-- positive as in the m4-infra snapshot: any organism other than org_itemid 90856
-- (mimic-code HEAD also excludes 90760 and org_name 'CANCELLED').
{{ suspicion_of_infection(
    antibiotic_order='starttime NULLS FIRST, stoptime NULLS FIRST, antibiotic NULLS FIRST,
        route NULLS FIRST, hadm_id NULLS FIRST, stay_id NULLS FIRST',
    culture_order='chartdate NULLS FIRST, charttime NULLS LAST, micro_specimen_id',
) }}
