-- Thin staging view of mimiciv_hosp.services: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'services') }}

),

renamed AS (

    SELECT
        subject_id,
        hadm_id,
        transfertime,
        prev_service,
        curr_service
    FROM source

)

SELECT * FROM renamed
