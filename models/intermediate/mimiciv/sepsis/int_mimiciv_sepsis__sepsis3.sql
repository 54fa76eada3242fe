-- Sepsis-3 onset per ICU stay: the first suspected infection with a SOFA score of 2 or
-- more within 48 hours before to 24 hours after it.
-- mimic-code: mimic-iv/concepts/sepsis/sepsis3.sql (m4-infra snapshot).
-- Singer M, et al. The Third International Consensus Definitions for Sepsis and Septic
-- Shock (Sepsis-3). JAMA 2016;315:801-810.
-- The SQL is macros/mimiciv/sepsis3_onset.sql (mimic-code's readings are its defaults), shared
-- with the sepsis3 reference's variants.
{{ config(alias='sepsis3') }}

{{ sepsis3_onset() }}
