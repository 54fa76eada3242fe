-- Reference: Sepsis-3 onset of each ICU stay with a suspected infection (task family sepsis3).
-- One row per stay_id that has a suspected infection with a SOFA >= 2 around it.
-- Singer M et al. The Third International Consensus Definitions for Sepsis and Septic Shock
-- (Sepsis-3). JAMA 2016;315:801-810.
-- The benchmark's definition is exactly mimic-code's sepsis3 concept (as vendored by
-- m4-infra) with the flag as an integer, so the reference reads that concept.
-- Conventions are listed in ref_sepsis3.yml.
-- The SQL is macros/references/m4_reference_sepsis3.sql, shared with the variants that read one
-- of its conventions otherwise (docs/explain.md).

{{ m4_reference_sepsis3() }}
