-- Thin staging view of mimiciv_hosp.diagnoses_icd: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'diagnoses_icd') }}

),

renamed AS (

    SELECT
        subject_id,
        hadm_id,
        seq_num,
        icd_code,
        icd_version
    FROM source

)

SELECT * FROM renamed
