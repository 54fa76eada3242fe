-- Reference: Simplified Acute Physiology Score II on the first 24 hours of each ICU stay (task
-- family sapsii, alias sapsii-24h). One row per ICU stay with an admission row.
-- Le Gall JR, Lemeshow S, Saulnier F. A new Simplified Acute Physiology Score (SAPS II) based
-- on a European/North American multicenter study. JAMA 1993;270:2957-2963.
-- Conventions are listed in ref_sapsii_24h.yml.

WITH first_day_values AS (
    -- Macro sapsii_first_day_values, shared with the sapsii concept: stays with an admission
    -- row (inner join, as the original); the window (intime, intime + 24 h], start
    -- exclusive, end inclusive; vital signs and labs of the patient (any stay or admission)
    -- in it; PaO2/FiO2 only while invasively ventilated or on CPAP/BiPAP (charted O2
    -- delivery device 226732, from 1 h before the first to 4 h after the last such row);
    -- the admission's first service decides whether it is surgical (two services at the
    -- earliest transfertime: a surgical one wins, then the service name; see
    -- ref_sapsii_24h.yml); chronic diseases from seed sapsii_comorbidity_icd_ranges.
    {{ sapsii_first_day_values() }}
),

component_scores AS (
    -- Each component is NULL when its data are missing (or fall in no band).
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        {{ sapsii_component_scores() }}
    FROM first_day_values
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    -- A component without data scores 0, in the total and in the components.
    CAST(
        COALESCE(age_score, 0)
        + COALESCE(hr_score, 0)
        + COALESCE(sysbp_score, 0)
        + COALESCE(temp_score, 0)
        + COALESCE(pao2fio2_score, 0)
        + COALESCE(uo_score, 0)
        + COALESCE(bun_score, 0)
        + COALESCE(wbc_score, 0)
        + COALESCE(potassium_score, 0)
        + COALESCE(sodium_score, 0)
        + COALESCE(bicarbonate_score, 0)
        + COALESCE(bilirubin_score, 0)
        + COALESCE(gcs_score, 0)
        + COALESCE(comorbidity_score, 0)
        + COALESCE(admissiontype_score, 0)
        AS INTEGER
    ) AS sapsii,
    CAST(COALESCE(age_score, 0) AS INTEGER) AS age_score,
    CAST(COALESCE(hr_score, 0) AS INTEGER) AS hr_score,
    CAST(COALESCE(sysbp_score, 0) AS INTEGER) AS sysbp_score,
    CAST(COALESCE(temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(pao2fio2_score, 0) AS INTEGER) AS pao2fio2_score,
    CAST(COALESCE(uo_score, 0) AS INTEGER) AS uo_score,
    CAST(COALESCE(bun_score, 0) AS INTEGER) AS bun_score,
    CAST(COALESCE(wbc_score, 0) AS INTEGER) AS wbc_score,
    CAST(COALESCE(potassium_score, 0) AS INTEGER) AS potassium_score,
    CAST(COALESCE(sodium_score, 0) AS INTEGER) AS sodium_score,
    CAST(COALESCE(bicarbonate_score, 0) AS INTEGER) AS bicarbonate_score,
    CAST(COALESCE(bilirubin_score, 0) AS INTEGER) AS bilirubin_score,
    CAST(COALESCE(gcs_score, 0) AS INTEGER) AS gcs_score,
    CAST(COALESCE(comorbidity_score, 0) AS INTEGER) AS comorbidity_score,
    CAST(COALESCE(admissiontype_score, 0) AS INTEGER) AS admissiontype_score
FROM component_scores
