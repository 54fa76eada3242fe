-- Reference: baseline serum creatinine of each adult hospital admission (task family
-- creatinine-baseline). One row per hadm_id with age >= 18.
-- Siew ED et al. Estimating baseline kidney function in hospitalized patients with impaired
-- kidney function. Clin J Am Soc Nephrol 2012;7:712-719.
-- The benchmark's definition is exactly mimic-code's creatinine_baseline concept (as
-- vendored by m4-infra), so the reference reads that concept and fixes the column types; its
-- scr_baseline is the concept's rule (macro creatinine_baseline_rule) applied to the concept's
-- scr_min, ckd and mdrd_est, which a variant applies otherwise.
-- Conventions are listed in ref_creatinine_baseline.yml.
-- The SQL is macros/references/m4_reference_creatinine_baseline.sql,
-- shared with the variants that read one of its conventions otherwise (docs/explain.md).

{{ m4_reference_creatinine_baseline() }}
