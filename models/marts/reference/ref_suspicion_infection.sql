-- Reference: suspicion of infection for every systemic antibiotic prescription (task family
-- suspicion-infection). One row per subject_id, ab_id.
-- Seymour CW et al. Assessment of clinical criteria for sepsis. JAMA 2016;315:762-774.
-- Conventions are listed in ref_suspicion_infection.yml.
-- The SQL is macros/references/m4_reference_suspicion_infection.sql,
-- shared with the variants that read one of its conventions otherwise (docs/explain.md).

{{ m4_reference_suspicion_infection() }}
