-- Dopamine infusions, rate in mcg/kg/min as charted.
-- mimic-code: mimic-iv/concepts/medication/dopamine.sql (m4-infra snapshot).
{{ config(alias='dopamine') }}

{{ vasoactive_infusions('dopamine') }}
