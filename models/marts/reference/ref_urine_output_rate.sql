-- Reference: rolling urine output rates (mL/kg/h over 6, 12 and 24 hours) at every urine
-- output charting of each ICU stay (task family urine-output-rate).
-- One row per stay_id, charttime.
-- KDIGO AKI Work Group. Kidney Int Suppl 2012;2:1-138.
-- The benchmark's definition is exactly mimic-code's urine_output_rate concept (as vendored by
-- m4-infra), so the reference computes it with the concept's macros and fixes the column types.
-- Conventions are listed in ref_urine_output_rate.yml.
-- The SQL is macros/references/m4_reference_urine_output_rate.sql, shared with the variants that
-- read one of its conventions otherwise (docs/explain.md).

{{ m4_reference_urine_output_rate() }}
