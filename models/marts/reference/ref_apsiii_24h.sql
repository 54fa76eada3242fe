-- Reference: Acute Physiology Score III (APACHE III) on the first day of each ICU stay (task
-- family apsiii, alias apsiii-24h). One row per ICU stay.
-- Knaus WA et al. The APACHE III prognostic system. Risk prediction of hospital mortality for
-- critically ill hospitalized adults. Chest 1991;100:1619-1636.
-- Conventions are listed in ref_apsiii_24h.yml.
-- The SQL is macros/references/m4_reference_apsiii_24h.sql, shared with the variants that read one
-- of its conventions otherwise (docs/explain.md).

{{ m4_reference_apsiii_24h() }}
