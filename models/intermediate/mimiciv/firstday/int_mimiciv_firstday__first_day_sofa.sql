-- Sequential Organ Failure Assessment (SOFA) over the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_sofa.sql (m4-infra snapshot).
-- Vincent JL et al. The SOFA (Sepsis-related Organ Failure Assessment) score to describe
-- organ dysfunction/failure. Intensive Care Med 1996;22(7):707-710.
-- The SQL is macro sofa_first_day (macros/mimiciv/sofa_first_day.sql) with mimic-code's readings,
-- shared with the sofa-24h reference: gases and infusion starts from intime - 6 h to intime + 24 h
-- (both inclusive), gases of any specimen, a component without data NULL (0 in the total).
{{ config(alias='first_day_sofa') }}

{{ sofa_first_day() }}
