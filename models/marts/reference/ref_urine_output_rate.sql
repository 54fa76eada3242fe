-- Reference: rolling urine output rates (mL/kg/h over 6, 12 and 24 hours) at every urine
-- output charting of each ICU stay (task family urine-output-rate).
-- One row per stay_id, charttime.
-- KDIGO AKI Work Group. Kidney Int Suppl 2012;2:1-138.
-- The benchmark's definition is exactly mimic-code's urine_output_rate concept (as vendored by
-- m4-infra), so the reference reads that concept and fixes the column types.
-- Conventions are listed in ref_urine_output_rate.yml.

WITH rates AS (
    SELECT
        stay_id,
        charttime,
        weight,
        uo,
        urineoutput_6hr,
        urineoutput_12hr,
        urineoutput_24hr,
        uo_mlkghr_6hr,
        uo_mlkghr_12hr,
        uo_mlkghr_24hr,
        uo_tm_6hr,
        uo_tm_12hr,
        uo_tm_24hr
    FROM {{ ref('int_mimiciv_measurement__urine_output_rate') }}
)

SELECT
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(charttime AS {{ m4_type('datetime') }}) AS charttime,
    CAST(weight AS {{ m4_type('double') }}) AS weight,
    CAST(uo AS {{ m4_type('double') }}) AS uo,
    CAST(urineoutput_6hr AS {{ m4_type('double') }}) AS urineoutput_6hr,
    CAST(urineoutput_12hr AS {{ m4_type('double') }}) AS urineoutput_12hr,
    CAST(urineoutput_24hr AS {{ m4_type('double') }}) AS urineoutput_24hr,
    CAST(uo_mlkghr_6hr AS {{ m4_type('double') }}) AS uo_mlkghr_6hr,
    CAST(uo_mlkghr_12hr AS {{ m4_type('double') }}) AS uo_mlkghr_12hr,
    CAST(uo_mlkghr_24hr AS {{ m4_type('double') }}) AS uo_mlkghr_24hr,
    CAST(uo_tm_6hr AS {{ m4_type('double') }}) AS uo_tm_6hr,
    CAST(uo_tm_12hr AS {{ m4_type('double') }}) AS uo_tm_12hr,
    CAST(uo_tm_24hr AS {{ m4_type('double') }}) AS uo_tm_24hr
FROM rates
