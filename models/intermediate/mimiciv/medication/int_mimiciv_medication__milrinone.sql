-- Milrinone infusions (inotrope), rate in mcg/kg/min as charted.
-- mimic-code: mimic-iv/concepts/medication/milrinone.sql (m4-infra snapshot).
{{ config(alias='milrinone') }}

{{ vasoactive_infusions('milrinone') }}
