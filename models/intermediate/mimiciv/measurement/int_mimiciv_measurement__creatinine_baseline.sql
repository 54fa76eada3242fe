-- Baseline serum creatinine per adult hospital admission: the lowest creatinine of the
-- admission when it is normal (<= 1.1 mg/dL) or the patient has chronic kidney disease,
-- otherwise the creatinine back-calculated from the MDRD equation assuming an eGFR of
-- 75 mL/min/1.73 m2.
-- mimic-code: mimic-iv/concepts/measurement/creatinine_baseline.sql (m4-infra snapshot).
-- KDIGO AKI Work Group. KDIGO Clinical Practice Guideline for Acute Kidney Injury.
-- Kidney Int Suppl 2012;2:1-138. Levey AS et al. Ann Intern Med 1999;130:461-470 (MDRD).
{{ config(alias='creatinine_baseline') }}

WITH adult_admissions AS (

    SELECT
        ag.subject_id,
        ag.hadm_id,
        ag.age,
        pat.gender,
        -- MDRD solved for creatinine at eGFR 75 (x 0.742 for women; no race factor)
        CASE
            WHEN pat.gender = 'F'
                THEN POWER(75.0 / 186.0 / POWER(ag.age, -0.203) / 0.742, -1 / 1.154)
            ELSE POWER(75.0 / 186.0 / POWER(ag.age, -0.203), -1 / 1.154)
        END AS mdrd_est
    FROM {{ ref('int_mimiciv_demographics__age') }} AS ag
    LEFT JOIN {{ ref('stg_mimiciv_hosp__patients') }} AS pat
        ON ag.subject_id = pat.subject_id
    WHERE ag.age >= 18

),

lowest_creatinine AS (

    SELECT
        hadm_id,
        MIN(creatinine) AS scr_min
    FROM {{ ref('int_mimiciv_measurement__chemistry') }}
    GROUP BY hadm_id

),

ckd_admissions AS (

    -- chronic kidney disease: ICD-9 585.x or ICD-10 N18.x
    SELECT
        hadm_id,
        MAX(1) AS ckd_flag
    FROM {{ ref('stg_mimiciv_hosp__diagnoses_icd') }}
    WHERE
        (SUBSTR(icd_code, 1, 3) = '585' AND icd_version = 9)
        OR (SUBSTR(icd_code, 1, 3) = 'N18' AND icd_version = 10)
    GROUP BY hadm_id

),

baseline AS (

    SELECT
        adm.hadm_id,
        adm.gender,
        adm.age,
        lab.scr_min,
        COALESCE(ckd.ckd_flag, 0) AS ckd,
        adm.mdrd_est,
        -- normal lowest value, else the lowest value with CKD, else the MDRD estimate
        {{ creatinine_baseline_rule('lab.scr_min', 'ckd.ckd_flag', 'adm.mdrd_est') }} AS scr_baseline
    FROM adult_admissions AS adm
    LEFT JOIN lowest_creatinine AS lab
        ON adm.hadm_id = lab.hadm_id
    LEFT JOIN ckd_admissions AS ckd
        ON adm.hadm_id = ckd.hadm_id

)

SELECT * FROM baseline
