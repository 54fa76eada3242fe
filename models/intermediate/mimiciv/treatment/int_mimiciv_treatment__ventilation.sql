-- Episodes of ventilation and oxygen therapy per ICU stay, classified from the charted
-- oxygen delivery device and ventilator mode.
-- mimic-code: mimic-iv/concepts/treatment/ventilation.sql (m4-infra snapshot).
-- The SQL is macros/mimiciv/ventilation_episodes.sql (mimic-code's readings are its defaults),
-- shared with the ventilation reference's variants.
{{ config(alias='ventilation') }}

{{ ventilation_episodes() }}
