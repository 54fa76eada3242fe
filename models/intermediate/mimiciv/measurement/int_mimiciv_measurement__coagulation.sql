-- Coagulation tests, one row per lab specimen.
-- mimic-code: mimic-iv/concepts/measurement/coagulation.sql (m4-infra snapshot).
-- Item ids, output columns and plausible maxima come from the seed mimiciv_lab_items.
-- Every non-missing value counts (no positivity filter).
{{ config(alias='coagulation') }}

{{ lab_panel_by_specimen('coagulation', ['d_dimer', 'fibrinogen', 'thrombin', 'inr', 'pt', 'ptt'], positive_only=false) }}
