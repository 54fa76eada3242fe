-- Reference: Simplified Acute Physiology Score II on the first 24 hours of each ICU stay (task
-- family sapsii, alias sapsii-24h). One row per ICU stay with an admission row.
-- Le Gall JR, Lemeshow S, Saulnier F. A new Simplified Acute Physiology Score (SAPS II) based
-- on a European/North American multicenter study. JAMA 1993;270:2957-2963.
-- Conventions are listed in ref_sapsii_24h.yml.
-- The SQL is macros/references/m4_reference_sapsii_24h.sql, shared with the variants that read one
-- of its conventions otherwise (docs/explain.md).

{{ m4_reference_sapsii_24h() }}
