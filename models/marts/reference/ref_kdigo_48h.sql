-- Reference: highest KDIGO acute kidney injury stage in the first 48 hours of each ICU stay
-- (task family kdigo, alias kdigo-48h). One row per ICU stay.
-- KDIGO AKI Work Group. KDIGO Clinical Practice Guideline for Acute Kidney Injury.
-- Kidney Int Suppl 2012;2:1-138. Conventions are listed in ref_kdigo_48h.yml.
-- The SQL is macros/references/m4_reference_kdigo_48h.sql,
-- shared with the variants that read one of its conventions otherwise (docs/explain.md).

{{ m4_reference_kdigo_48h() }}
