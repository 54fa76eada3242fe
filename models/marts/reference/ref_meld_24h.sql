-- Reference: MELD(-Na) score from the first day of each ICU stay (task family meld,
-- alias meld-24h). One row per ICU stay.
-- Kamath PS et al. A model to predict survival in patients with end-stage liver disease.
-- Hepatology 2001;33:464-470. Kim WR et al. Hyponatremia and mortality among patients on the
-- liver-transplant waiting list. N Engl J Med 2008;359:1018-1026.
-- Conventions are listed in ref_meld_24h.yml.
--
-- The score is the meld concept's (int_mimiciv_organfailure__meld): first-day labs and
-- dialysis, each lab floored at 1, creatinine 4 above 4 or on dialysis, the sum rounded to
-- one decimal, times 10, capped at 40, and the sodium term above an initial MELD of 11.
-- The SQL is macros/references/m4_reference_meld_24h.sql, shared with the variants that read one
-- of its conventions otherwise (docs/explain.md).

{{ m4_reference_meld_24h() }}
