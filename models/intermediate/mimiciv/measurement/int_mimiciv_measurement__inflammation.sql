-- Inflammation markers (C-reactive protein), one row per lab specimen.
-- mimic-code: mimic-iv/concepts/measurement/inflammation.sql (m4-infra snapshot).
-- Item ids, output columns and plausible maxima come from the seed mimiciv_lab_items.
-- Only positive values count.
{{ config(alias='inflammation') }}

{{ lab_panel_by_specimen('inflammation', ['crp']) }}
