-- Lowest and highest arterial blood-gas values of the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_bg_art.sql (m4-infra snapshot).
{{ config(alias='first_day_bg_art') }}

{{ first_day_blood_gases(specimen='ART.') }}
