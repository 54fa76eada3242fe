-- Phenylephrine infusions, rate in mcg/kg/min.
-- mimic-code: mimic-iv/concepts/medication/phenylephrine.sql (m4-infra snapshot).
{{ config(alias='phenylephrine') }}

-- Rows charted in mcg/min are divided by the patient's weight to give mcg/kg/min.
{{ vasoactive_infusions('phenylephrine',
                        rate="CASE WHEN ie.rateuom = 'mcg/min' THEN ie.rate / ie.patientweight ELSE ie.rate END") }}
