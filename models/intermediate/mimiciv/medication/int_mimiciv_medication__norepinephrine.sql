-- Norepinephrine infusions, rate in mcg/kg/min.
-- mimic-code: mimic-iv/concepts/medication/norepinephrine.sql (m4-infra snapshot).
{{ config(alias='norepinephrine') }}

-- Rows charted in mg/kg/min are converted to mcg/kg/min, except those with a
-- recorded weight of exactly 1 kg, whose rate is kept as charted (mimic-code rule).
{{ vasoactive_infusions('norepinephrine', rate="
        CASE
            WHEN ie.rateuom = 'mg/kg/min' AND ie.patientweight = 1 THEN ie.rate
            WHEN ie.rateuom = 'mg/kg/min' THEN ie.rate * 1000.0
            ELSE ie.rate
        END") }}
