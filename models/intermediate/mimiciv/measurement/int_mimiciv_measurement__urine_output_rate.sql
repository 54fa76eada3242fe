-- Urine output over the preceding 6, 12 and 24 hours and as mL/kg/h, one row per ICU
-- stay and urine output charttime (more if weight periods overlap at that time).
-- mimic-code: mimic-iv/concepts/measurement/urine_output_rate.sql (m4-infra snapshot).
-- The SQL is macros/mimiciv/urine_output_rate.sql, shared with the urine-output-rate reference.
{{ config(alias='urine_output_rate') }}

{{ urine_output_rate(ref('int_mimiciv_measurement__urine_output')) }}
