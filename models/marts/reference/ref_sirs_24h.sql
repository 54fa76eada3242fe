-- Reference: Systemic Inflammatory Response Syndrome criteria on the first day of each ICU
-- stay (task family sirs, alias sirs-24h). One row per ICU stay.
-- American College of Chest Physicians / Society of Critical Care Medicine Consensus
-- Conference. Crit Care Med 1992;20:864-874. Conventions are listed in ref_sirs_24h.yml.
--
-- The criteria and their first-day inputs are the sirs concept's (int_mimiciv_score__sirs,
-- macro sirs_criteria: temperature < 36 or > 38 C; heart rate > 90; respiratory rate > 20 or
-- arterial PaCO2 < 32 mmHg; WBC < 4 or > 12 K/uL or bands > 10 %). The reference differs only
-- in its missing data: a criterion without data is 0, not NULL.
-- The SQL is macros/references/m4_reference_sirs_24h.sql, shared with the variants that read one
-- of its conventions otherwise (docs/explain.md).

{{ m4_reference_sirs_24h() }}
