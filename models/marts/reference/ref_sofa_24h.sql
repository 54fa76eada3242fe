-- Reference: Sequential Organ Failure Assessment on the first day of each ICU stay (task
-- family sofa, alias sofa-24h). One row per ICU stay.
-- Vincent JL et al. The SOFA (Sepsis-related Organ Failure Assessment) score to describe
-- organ dysfunction/failure. Intensive Care Med 1996;22:707-710.
-- Conventions are listed in ref_sofa_24h.yml; the SQL is macros/references/m4_reference_sofa_24h.sql,
-- shared with the variants that read one convention otherwise (docs/explain.md).

{{ m4_reference_sofa_24h() }}
