-- Dobutamine infusions (inotrope), rate in mcg/kg/min as charted.
-- mimic-code: mimic-iv/concepts/medication/dobutamine.sql (m4-infra snapshot).
{{ config(alias='dobutamine') }}

{{ vasoactive_infusions('dobutamine') }}
