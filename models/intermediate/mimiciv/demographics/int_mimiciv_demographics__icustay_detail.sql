-- ICU stay with patient and admission details: ages, lengths of stay, stay sequence numbers.
-- mimic-code: mimic-iv/concepts/demographics/icustay_detail.sql.
{{ config(alias='icustay_detail') }}

WITH icustays AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        intime,
        outtime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

admissions AS (

    SELECT
        subject_id,
        hadm_id,
        admittime,
        dischtime,
        race,
        hospital_expire_flag
    FROM {{ ref('stg_mimiciv_hosp__admissions') }}

),

patients AS (

    SELECT
        subject_id,
        gender,
        anchor_age,
        anchor_year,
        dod
    FROM {{ ref('stg_mimiciv_hosp__patients') }}

),

stay_detail AS (

    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        pat.gender,
        pat.dod,
        adm.admittime,
        adm.dischtime,
        {{ dbt.datediff('adm.admittime', 'adm.dischtime', 'microsecond') }} / 86400000000.0 AS los_hospital,
        -- fractional age as in the age model (m4-infra snapshot; mimic-code HEAD uses whole years)
        pat.anchor_age
        + {{ dbt.datediff(m4_year_start('pat.anchor_year'), "adm.admittime", "microsecond") }}
        / 31556908800000.0 AS admission_age,
        adm.race,
        adm.hospital_expire_flag,
        DENSE_RANK() OVER (PARTITION BY adm.subject_id ORDER BY adm.admittime) AS hospstay_seq,
        ie.intime AS icu_intime,
        ie.outtime AS icu_outtime,
        -- days, cast to DECIMAL(18, 3) first and then rounded to 2 places, as mimic-code does
        ROUND(
            {{ dbt.safe_cast(dbt.datediff('ie.intime', 'ie.outtime', 'microsecond') ~ " / 3600000000.0 / 24.0", "DECIMAL(18, 3)") }},
            2
        ) AS los_icu,
        DENSE_RANK() OVER (PARTITION BY ie.hadm_id ORDER BY ie.intime NULLS FIRST) AS icustay_seq
    FROM icustays AS ie
    INNER JOIN admissions AS adm
        ON ie.hadm_id = adm.hadm_id
    INNER JOIN patients AS pat
        ON ie.subject_id = pat.subject_id

),

final AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        gender,
        dod,
        admittime,
        dischtime,
        los_hospital,
        admission_age,
        race,
        hospital_expire_flag,
        hospstay_seq,
        hospstay_seq = 1 AS first_hosp_stay,
        icu_intime,
        icu_outtime,
        los_icu,
        icustay_seq,
        icustay_seq = 1 AS first_icu_stay
    FROM stay_detail

)

SELECT * FROM final
