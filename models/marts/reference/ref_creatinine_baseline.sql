-- Reference: baseline serum creatinine of each adult hospital admission (task family
-- creatinine-baseline). One row per hadm_id with age >= 18.
-- Siew ED et al. Estimating baseline kidney function in hospitalized patients with impaired
-- kidney function. Clin J Am Soc Nephrol 2012;7:712-719.
-- The benchmark's definition is exactly mimic-code's creatinine_baseline concept (as
-- vendored by m4-infra), so the reference reads that concept and fixes the column types.
-- Conventions are listed in ref_creatinine_baseline.yml.

WITH baseline AS (
    SELECT hadm_id, gender, age, scr_min, ckd, mdrd_est, scr_baseline
    FROM {{ ref('int_mimiciv_measurement__creatinine_baseline') }}
)

SELECT
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(gender AS {{ m4_type('string') }}) AS gender,
    CAST(age AS {{ m4_type('double') }}) AS age,
    CAST(scr_min AS {{ m4_type('double') }}) AS scr_min,
    CAST(ckd AS INTEGER) AS ckd,
    CAST(mdrd_est AS {{ m4_type('double') }}) AS mdrd_est,
    CAST(scr_baseline AS {{ m4_type('double') }}) AS scr_baseline
FROM baseline
