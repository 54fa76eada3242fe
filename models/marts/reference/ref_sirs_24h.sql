-- Reference: Systemic Inflammatory Response Syndrome criteria on the first day of each ICU
-- stay (task family sirs, alias sirs-24h). One row per ICU stay.
-- American College of Chest Physicians / Society of Critical Care Medicine Consensus
-- Conference. Crit Care Med 1992;20:864-874. Conventions are listed in ref_sirs_24h.yml.
--
-- The criteria and their first-day inputs are the sirs concept's
-- (int_mimiciv_score__sirs: temperature < 36 or > 38 C; heart rate > 90; respiratory
-- rate > 20 or arterial PaCO2 < 32 mmHg; WBC < 4 or > 12 K/uL or bands > 10 %). The
-- reference differs only in its missing data: a criterion without data is 0, not NULL.

SELECT
    CAST(sirs.subject_id AS INTEGER) AS subject_id,
    CAST(sirs.hadm_id AS INTEGER) AS hadm_id,
    CAST(sirs.stay_id AS INTEGER) AS stay_id,
    -- The total already counts a criterion without data as not met (0).
    CAST(sirs.sirs AS INTEGER) AS sirs,
    CAST(COALESCE(sirs.temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(sirs.heart_rate_score, 0) AS INTEGER) AS heart_rate_score,
    CAST(COALESCE(sirs.resp_score, 0) AS INTEGER) AS resp_score,
    CAST(COALESCE(sirs.wbc_score, 0) AS INTEGER) AS wbc_score
FROM {{ ref('int_mimiciv_score__sirs') }} AS sirs
