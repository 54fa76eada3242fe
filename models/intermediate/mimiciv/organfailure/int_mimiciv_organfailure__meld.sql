-- Model for End-stage Liver Disease (MELD) score with the sodium correction (MELD-Na),
-- from the worst labs of the first ICU day.
-- mimic-code: mimic-iv/concepts/organfailure/meld.sql (m4-infra snapshot).
-- Kamath PS, et al. A model to predict survival in patients with end-stage liver disease.
-- Hepatology 2001;33:464-470. Kim WR, et al. Hyponatremia and mortality among patients on
-- the liver-transplant waiting list. N Engl J Med 2008;359:1018-1026 (UNOS MELD-Na, 2016).
-- The SQL is macros/mimiciv/meld_score.sql (mimic-code's readings are its defaults), shared with
-- the meld-24h reference's variants.
{{ config(alias='meld') }}

{{ meld_score() }}
