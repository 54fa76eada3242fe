-- Cardiac markers (troponin T, CK-MB, NT-proBNP), one row per lab specimen.
-- mimic-code: mimic-iv/concepts/measurement/cardiac_marker.sql (m4-infra snapshot).
-- Item ids, output columns and plausible maxima come from the seed mimiciv_lab_items.
-- Every non-missing value counts (no positivity filter).
{{ config(alias='cardiac_marker') }}

{{ lab_panel_by_specimen('cardiac_marker', ['troponin_t', 'ck_mb', 'ntprobnp'], positive_only=false) }}
