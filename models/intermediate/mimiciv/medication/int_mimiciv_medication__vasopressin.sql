-- Vasopressin infusions, rate in units/hour.
-- mimic-code: mimic-iv/concepts/medication/vasopressin.sql (m4-infra snapshot).
{{ config(alias='vasopressin') }}

-- Rows charted in units/min are converted to units/hour.
{{ vasoactive_infusions('vasopressin', rate="CASE WHEN ie.rateuom = 'units/min' THEN ie.rate * 60.0 ELSE ie.rate END") }}
