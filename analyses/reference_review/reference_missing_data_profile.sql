-- Review: how often the "missing component scores 0" rule decides a first-day score. For
-- each score, the share of stays lacking the inputs of each component (so the component is
-- 0 by rule rather than by measurement). Large shares mean the score mostly measures
-- data availability on this dataset.

WITH stays AS (
    SELECT stay_id FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

inputs AS (
    SELECT
        stays.stay_id,
        labs.platelets_min IS NULL AS no_platelets,
        labs.bilirubin_total_max IS NULL AS no_bilirubin,
        labs.creatinine_max IS NULL AS no_creatinine,
        vitals.mbp_min IS NULL AS no_mbp,
        vitals.heart_rate_max IS NULL AS no_heart_rate,
        vitals.temperature_max IS NULL AS no_temperature,
        vitals.resp_rate_max IS NULL AS no_resp_rate,
        gcs.gcs_min IS NULL AS no_gcs,
        urine.urineoutput IS NULL AS no_urine_output,
        gases.pao2fio2ratio_min IS NULL AS no_arterial_pf_ratio
    FROM stays
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS labs
        ON stays.stay_id = labs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS vitals
        ON stays.stay_id = vitals.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_gcs') }} AS gcs
        ON stays.stay_id = gcs.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_urine_output') }} AS urine
        ON stays.stay_id = urine.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_bg_art') }} AS gases
        ON stays.stay_id = gases.stay_id
)

SELECT
    COUNT(*) AS stays,
    AVG(CAST(no_platelets AS INTEGER)) AS share_no_platelets,
    AVG(CAST(no_bilirubin AS INTEGER)) AS share_no_bilirubin,
    AVG(CAST(no_creatinine AS INTEGER)) AS share_no_creatinine,
    AVG(CAST(no_mbp AS INTEGER)) AS share_no_mbp,
    AVG(CAST(no_heart_rate AS INTEGER)) AS share_no_heart_rate,
    AVG(CAST(no_temperature AS INTEGER)) AS share_no_temperature,
    AVG(CAST(no_resp_rate AS INTEGER)) AS share_no_resp_rate,
    AVG(CAST(no_gcs AS INTEGER)) AS share_no_gcs,
    AVG(CAST(no_urine_output AS INTEGER)) AS share_no_urine_output,
    AVG(CAST(no_arterial_pf_ratio AS INTEGER)) AS share_no_arterial_pf_ratio
FROM inputs
