-- Systemic Inflammatory Response Syndrome (SIRS) criteria over the first day of each ICU stay.
-- Bone RC, Balk RA, Cerra FB, et al. Definitions for sepsis and organ failure and guidelines
-- for the use of innovative therapies in sepsis. The ACCP/SCCM Consensus Conference
-- Committee. Chest. 1992;101(6):1644-1655.
-- Follows mimic-code mimic-iv/concepts/score/sirs.sql as vendored by m4-infra 0.5.9.
-- The SQL is macros/mimiciv/sirs_criteria.sql (mimic-code's readings are its defaults), shared with
-- the sirs-24h reference.
{{ config(alias='sirs') }}

{{ sirs_criteria() }}
