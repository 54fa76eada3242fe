-- Thin staging view of mimiciv_icu.d_items: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('mimiciv_icu', 'd_items') }}

),

renamed AS (

    SELECT
        itemid,
        label,
        abbreviation,
        linksto,
        category,
        unitname,
        param_type,
        lownormalvalue,
        highnormalvalue
    FROM source

)

SELECT * FROM renamed
