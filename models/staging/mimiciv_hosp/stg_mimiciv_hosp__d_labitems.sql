-- Thin staging view of mimiciv_hosp.d_labitems: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_hosp', 'd_labitems') }}

),

renamed AS (

    SELECT
        itemid,
        label,
        fluid,
        category
    FROM source

)

SELECT * FROM renamed
