-- Lowest and highest blood-gas values of the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_bg.sql (m4-infra snapshot).
{{ config(alias='first_day_bg') }}

{{ first_day_blood_gases() }}
