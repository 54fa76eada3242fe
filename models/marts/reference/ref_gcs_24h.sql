-- Reference: lowest Glasgow Coma Scale in the first day of each ICU stay (task family gcs,
-- alias gcs-24h). One row per ICU stay.
-- Teasdale G, Jennett B. Assessment of coma and impaired consciousness. Lancet 1974;2:81-84.
-- Conventions are listed in ref_gcs_24h.yml.
-- The SQL is macros/references/m4_reference_gcs_24h.sql,
-- shared with the variants that read one of its conventions otherwise (docs/explain.md).

{{ m4_reference_gcs_24h() }}
