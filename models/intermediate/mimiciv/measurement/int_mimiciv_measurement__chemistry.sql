-- Blood chemistry panel, one row per lab specimen.
-- mimic-code: mimic-iv/concepts/measurement/chemistry.sql (m4-infra snapshot).
-- Item ids, output columns and plausible maxima come from the seed mimiciv_lab_items.
-- Only positive values count, except the anion gap, which may be zero or negative.
{{ config(alias='chemistry') }}

{{ lab_panel_by_specimen('chemistry', ['albumin', 'globulin', 'total_protein', 'aniongap', 'bicarbonate', 'bun', 'calcium', 'chloride', 'creatinine', 'glucose', 'sodium', 'potassium'], nonpositive_allowed=['aniongap']) }}
