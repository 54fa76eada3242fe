-- Epinephrine infusions, rate in mcg/kg/min as charted.
-- mimic-code: mimic-iv/concepts/medication/epinephrine.sql (m4-infra snapshot).
{{ config(alias='epinephrine') }}

{{ vasoactive_infusions('epinephrine') }}
