-- Urine output in mL, one row per ICU stay and charttime.
-- mimic-code: mimic-iv/concepts/measurement/urine_output.sql.
-- The SQL is macros/mimiciv/urine_output.sql (GU irrigant instilled subtracted), shared with the
-- urine-output-rate reference.
{{ config(alias='urine_output') }}

{{ urine_output_per_charttime() }}
