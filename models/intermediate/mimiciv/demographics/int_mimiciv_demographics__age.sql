-- Age at hospital admission, fractional years.
-- mimic-code: mimic-iv/concepts/demographics/age.sql (m4-infra snapshot).
{{ config(alias='age') }}

WITH admissions AS (

    SELECT
        subject_id,
        hadm_id,
        admittime
    FROM {{ ref('stg_mimiciv_hosp__admissions') }}

),

patients AS (

    SELECT
        subject_id,
        anchor_age,
        anchor_year
    FROM {{ ref('stg_mimiciv_hosp__patients') }}

),

admission_age AS (

    SELECT
        adm.subject_id,
        adm.hadm_id,
        adm.admittime,
        pat.anchor_age,
        pat.anchor_year,
        -- anchor_age is the age on 1 January of anchor_year; add the time since then
        -- in years of 365.2422 days (31,556,908,800,000 microseconds).
        pat.anchor_age
        + {{ dbt.datediff(m4_year_start('pat.anchor_year'), "adm.admittime", "microsecond") }}
        / 31556908800000.0 AS age
    FROM admissions AS adm
    INNER JOIN patients AS pat
        ON adm.subject_id = pat.subject_id

)

SELECT * FROM admission_age
