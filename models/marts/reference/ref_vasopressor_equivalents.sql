-- Reference: norepinephrine-equivalent vasopressor dose per infusion interval (task family
-- vasopressor-equivalents). One row per stay_id, starttime (and its endtime).
-- Goradia S et al. Vasopressor dose equivalence: a scoping review and suggested formula.
-- J Crit Care 2021;61:233-240. Conventions are listed in ref_vasopressor_equivalents.yml.
-- The SQL is macros/references/m4_reference_vasopressor_equivalents.sql,
-- shared with the variants that read one of its conventions otherwise (docs/explain.md).

{{ m4_reference_vasopressor_equivalents() }}
