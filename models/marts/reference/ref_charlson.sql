-- Reference: Charlson Comorbidity Index of each hospital admission (task family charlson).
-- One row per hadm_id in admissions.
-- Charlson ME et al. A new method of classifying prognostic comorbidity in longitudinal studies.
-- J Chronic Dis 1987;40:373-383. ICD mapping: Quan H et al. Med Care 2005;43:1130-1139.
-- The benchmark's definition is exactly mimic-code's charlson concept (as vendored by m4-infra),
-- so the reference reads that concept, orders the columns as the task requires and fixes their
-- types. Conventions are listed in ref_charlson.yml.
-- The SQL is macros/references/m4_reference_charlson.sql, shared with the variants that read one
-- of its conventions otherwise (docs/explain.md).

{{ m4_reference_charlson() }}
