-- Simplified Acute Physiology Score II (SAPS II) over the first 24 hours of each ICU stay.
-- Le Gall JR, Lemeshow S, Saulnier F. A new Simplified Acute Physiology Score (SAPS II) based
-- on a European/North American multicenter study. JAMA. 1993;270(24):2957-2963.
-- Follows mimic-code mimic-iv/concepts/score/sapsii.sql as vendored by m4-infra 0.5.9.
{{ config(alias='sapsii') }}

WITH cohort AS (

    -- Stays with an admission row, with every component's first-day extreme (macro
    -- sapsii_first_day_values, shared with ref_sapsii_24h).
    {{ sapsii_first_day_values() }}

),

component_scores AS (

    -- Points of Le Gall 1993, table 1. A component without data is NULL (and counts 0
    -- in the total); a value outside every band (e.g. GCS below 3) is NULL too.
    SELECT
        cohort.*,
        {{ sapsii_component_scores() }}
    FROM cohort

),

total_scores AS (

    SELECT
        component_scores.*,
        COALESCE(age_score, 0) + COALESCE(hr_score, 0) + COALESCE(sysbp_score, 0)
        + COALESCE(temp_score, 0) + COALESCE(pao2fio2_score, 0) + COALESCE(uo_score, 0)
        + COALESCE(bun_score, 0) + COALESCE(wbc_score, 0) + COALESCE(potassium_score, 0)
        + COALESCE(sodium_score, 0) + COALESCE(bicarbonate_score, 0) + COALESCE(bilirubin_score, 0)
        + COALESCE(gcs_score, 0) + COALESCE(comorbidity_score, 0) + COALESCE(admissiontype_score, 0)
            AS sapsii
    FROM component_scores

),

final AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        starttime,
        endtime,
        sapsii,
        -- Predicted hospital mortality, Le Gall 1993: logit = -7.7631 + 0.0737 * score + 0.9971 * ln(score + 1).
        1 / (1 + EXP(-(-7.7631 + 0.0737 * sapsii + 0.9971 * LN(sapsii + 1)))) AS sapsii_prob,
        age_score,
        hr_score,
        sysbp_score,
        temp_score,
        pao2fio2_score,
        uo_score,
        bun_score,
        wbc_score,
        potassium_score,
        sodium_score,
        bicarbonate_score,
        bilirubin_score,
        gcs_score,
        comorbidity_score,
        admissiontype_score
    FROM total_scores

)

SELECT * FROM final
