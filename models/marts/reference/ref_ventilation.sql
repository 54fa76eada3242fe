-- Reference: ventilation episodes of each ICU stay, numbered in time order (task family
-- ventilation). One row per stay_id, ventilation_seq.
-- The episodes are exactly mimic-code's ventilation concept (as vendored by m4-infra); the
-- benchmark adds ventilation_seq so that rows can be matched. Conventions are listed in
-- ref_ventilation.yml.
-- The SQL is macros/references/m4_reference_ventilation.sql, shared with the variants that read one
-- of its conventions otherwise (docs/explain.md).

{{ m4_reference_ventilation() }}
