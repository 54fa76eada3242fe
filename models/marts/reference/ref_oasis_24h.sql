-- Reference: Oxford Acute Severity of Illness Score on the first day of each ICU stay (task
-- family oasis, alias oasis-24h). One row per ICU stay with an admission and a patient row.
-- Johnson AEW, Kramer AA, Clifford GD. A new severity of illness scale using a subset of
-- Acute Physiology And Chronic Health Evaluation data elements shows comparable predictive
-- accuracy. Crit Care Med 2013;41:1711-1718. Conventions are listed in ref_oasis_24h.yml.
-- The SQL is macros/references/m4_reference_oasis_24h.sql, shared with the variants that read one
-- of its conventions otherwise (docs/explain.md).

{{ m4_reference_oasis_24h() }}
