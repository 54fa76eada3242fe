{#-
  Urine output in mL per ICU stay and charttime (mimic-code measurement/urine_output.sql), shared by
  the concept (int_mimiciv_measurement__urine_output) and the urine-output-rate reference, whose
  variants read the genitourinary irrigant otherwise (docs/explain.md). Item ids come from the seed
  mimiciv_urine_output_items.

  irrigant_in: what the GU irrigant instilled (the seed's is_irrigant_in item, 227488) does. It
  returns with the urine measured in 227489, so mimic-code subtracts a positive volume
  ('subtracted'); 'excluded' leaves it out, 'added' counts it as urine like the other items.
-#}
{% macro urine_output_per_charttime(irrigant_in='subtracted') %}
WITH urine_items AS (

    SELECT
        itemid,
        is_irrigant_in
    FROM {{ ref('mimiciv_urine_output_items') }}
    {%- if irrigant_in == 'excluded' %}
    WHERE NOT is_irrigant_in
    {%- endif %}

),

urine_rows AS (

    SELECT
        oe.stay_id,
        oe.charttime,
        {%- if irrigant_in == 'subtracted' %}
        CASE
            WHEN items.is_irrigant_in AND oe.value > 0 THEN -1 * oe.value
            ELSE oe.value
        END AS urineoutput
        {%- else %}
        oe.value AS urineoutput
        {%- endif %}
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
{% endmacro %}
