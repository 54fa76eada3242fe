{#-
  Lowest and highest blood-gas values of the first ICU day, one row per ICU
  stay, as mimic-code's first_day_bg and first_day_bg_art compute them: gases
  of the patient (matched on subject_id, not the stay) from 6 hours before to
  24 hours after ICU admission, of every specimen or only of `specimen`
  (the bg concept's specimen label, e.g. 'ART.').
-#}
{% macro first_day_blood_gases(specimen=none) %}
{%- set measures = [
    'lactate', 'ph', 'so2', 'po2', 'pco2', 'aado2', 'aado2_calc', 'pao2fio2ratio',
    'baseexcess', 'bicarbonate', 'totalco2', 'hematocrit', 'hemoglobin', 'carboxyhemoglobin',
    'methemoglobin', 'temperature', 'chloride', 'calcium', 'glucose', 'potassium', 'sodium'] %}

WITH icustays AS (

    SELECT
        subject_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_gases AS (

    SELECT
        ie.subject_id,
        ie.stay_id
        {%- for measure in measures %},
        MIN(bg.{{ measure }}) AS {{ measure }}_min,
        MAX(bg.{{ measure }}) AS {{ measure }}_max
        {%- endfor %}
    FROM icustays AS ie
    LEFT JOIN {{ ref('int_mimiciv_measurement__bg') }} AS bg
        ON
            ie.subject_id = bg.subject_id
            {%- if specimen %}
            AND bg.specimen = '{{ specimen }}'
            {%- endif %}
            AND bg.charttime >= {{ dbt.dateadd('hour', -6, 'ie.intime') }}
            AND bg.charttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    GROUP BY ie.subject_id, ie.stay_id

)

SELECT * FROM first_day_gases
{% endmacro %}
