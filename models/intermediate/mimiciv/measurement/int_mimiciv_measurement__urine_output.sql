-- Urine output in mL, one row per ICU stay and charttime.
-- mimic-code: mimic-iv/concepts/measurement/urine_output.sql.
-- Item ids come from the seed mimiciv_urine_output_items.
{{ config(alias='urine_output') }}

WITH urine_items AS (

    SELECT
        itemid,
        is_irrigant_in
    FROM {{ ref('mimiciv_urine_output_items') }}

),

urine_rows AS (

    -- GU irrigant instilled (227488) returns with the urine measured in 227489, so a
    -- positive irrigant volume is subtracted.
    SELECT
        oe.stay_id,
        oe.charttime,
        CASE
            WHEN items.is_irrigant_in AND oe.value > 0 THEN -1 * oe.value
            ELSE oe.value
        END AS urineoutput
    FROM {{ ref('int_mimiciv_events__outputevents_used') }} AS oe
    INNER JOIN urine_items AS items
        ON oe.itemid = items.itemid

),

urine_per_charttime AS (

    SELECT
        stay_id,
        charttime,
        SUM(urineoutput) AS urineoutput
    FROM urine_rows
    GROUP BY stay_id, charttime

)

SELECT * FROM urine_per_charttime
