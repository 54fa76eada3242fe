-- Complete blood count, one row per lab specimen.
-- mimic-code: mimic-iv/concepts/measurement/complete_blood_count.sql (m4-infra snapshot).
-- Item ids, output columns and plausible maxima come from the seed mimiciv_lab_items.
-- Only positive values count.
{{ config(alias='complete_blood_count') }}

{{ lab_panel_by_specimen('complete_blood_count', ['hematocrit', 'hemoglobin', 'mch', 'mchc', 'mcv', 'platelet', 'rbc', 'rdw', 'rdwsd', 'wbc']) }}
