-- Reference: Oxford Acute Severity of Illness Score on the first day of each ICU stay (task
-- family oasis, alias oasis-24h). One row per ICU stay with an admission and a patient row.
-- Johnson AEW, Kramer AA, Clifford GD. A new severity of illness scale using a subset of
-- Acute Physiology And Chronic Health Evaluation data elements shows comparable predictive
-- accuracy. Crit Care Med 2013;41:1711-1718. Conventions are listed in ref_oasis_24h.yml.

WITH first_day_values AS (
    -- Macro oasis_first_day_values, shared with the oasis concept: stays with an admission
    -- and a patient row (inner joins, as the original); preiculos in fractional minutes;
    -- mechvent 1 when an InvasiveVent episode starts, ends, or spans the first 24 hours;
    -- elective surgery when the admission is ELECTIVE and any service started before
    -- intime + 24 h is surgical (curr_service containing 'surg', any case, or 'ORTHO').
    {{ oasis_first_day_values() }}
),

component_scores AS (
    -- Each component is NULL when its data are missing.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        {{ oasis_points('preiculos') }} AS preiculos_score,
        {{ oasis_points('age') }} AS age_score,
        {{ oasis_points('gcs') }} AS gcs_score,
        {{ oasis_points('heart_rate') }} AS heart_rate_score,
        {{ oasis_points('mbp') }} AS mbp_score,
        {{ oasis_points('resp_rate') }} AS resp_rate_score,
        {{ oasis_points('temperature') }} AS temp_score,
        {{ oasis_points('urineoutput') }} AS urineoutput_score,
        {{ oasis_points('mechvent') }} AS mechvent_score,
        {{ oasis_points('electivesurgery') }} AS electivesurgery_score
    FROM first_day_values
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    -- A component without data scores 0, in the total and in the components.
    CAST(
        COALESCE(preiculos_score, 0)
        + COALESCE(age_score, 0)
        + COALESCE(gcs_score, 0)
        + COALESCE(heart_rate_score, 0)
        + COALESCE(mbp_score, 0)
        + COALESCE(resp_rate_score, 0)
        + COALESCE(temp_score, 0)
        + COALESCE(urineoutput_score, 0)
        + COALESCE(mechvent_score, 0)
        + COALESCE(electivesurgery_score, 0)
        AS INTEGER
    ) AS oasis,
    CAST(COALESCE(preiculos_score, 0) AS INTEGER) AS preiculos_score,
    CAST(COALESCE(age_score, 0) AS INTEGER) AS age_score,
    CAST(COALESCE(gcs_score, 0) AS INTEGER) AS gcs_score,
    CAST(COALESCE(heart_rate_score, 0) AS INTEGER) AS heart_rate_score,
    CAST(COALESCE(mbp_score, 0) AS INTEGER) AS mbp_score,
    CAST(COALESCE(resp_rate_score, 0) AS INTEGER) AS resp_rate_score,
    CAST(COALESCE(temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(urineoutput_score, 0) AS INTEGER) AS urineoutput_score,
    CAST(COALESCE(mechvent_score, 0) AS INTEGER) AS mechvent_score,
    CAST(COALESCE(electivesurgery_score, 0) AS INTEGER) AS electivesurgery_score
FROM component_scores
