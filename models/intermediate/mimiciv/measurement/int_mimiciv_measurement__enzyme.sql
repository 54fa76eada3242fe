-- Liver and muscle enzymes and bilirubin, one row per lab specimen.
-- mimic-code: mimic-iv/concepts/measurement/enzyme.sql (m4-infra snapshot).
-- Item ids, output columns and plausible maxima come from the seed mimiciv_lab_items.
-- Only positive values count.
{{ config(alias='enzyme') }}

{{ lab_panel_by_specimen('enzyme', ['alt', 'alp', 'ast', 'amylase', 'bilirubin_total', 'bilirubin_direct', 'bilirubin_indirect', 'ck_cpk', 'ck_mb', 'ggt', 'ld_ldh']) }}
