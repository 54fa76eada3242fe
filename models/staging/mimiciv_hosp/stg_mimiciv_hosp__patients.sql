-- Thin staging view of mimiciv_hosp.patients: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'patients') }}

),

renamed AS (

    SELECT
        subject_id,
        gender,
        anchor_age,
        anchor_year,
        anchor_year_group,
        dod
    FROM source

)

SELECT * FROM renamed
