{#-
  The APS III points (the physiology part of APACHE III: Knaus WA et al., Chest
  1991;100:1619-36), as expressions over the columns a caller names. Shared by the
  apsiii concept and the apsiii-24h reference, which differ in their windows and
  inputs (which gases, which FiO2) but not in their points. Each expression is NULL
  when its data are missing, or when a value falls in no band of the table.

  apsiii_points(variable, value): the points of one value of a variable scored by
  ladder: heart_rate, mbp, temperature, resp_rate (a rate under 14 scores 0 when
  `vent` is 1: the ventilator sets it), hematocrit, wbc, creatinine (with acute
  renal failure, `arf` 1, only >= 1.5 mg/dL scores, 10 points), bun, sodium,
  albumin, bilirubin, glucose.
-#}
{% macro apsiii_points(variable, value, vent='vent', arf='arf') -%}
    {%- if variable == 'heart_rate' -%}
    CASE
        WHEN {{ value }} < 40 THEN 8
        WHEN {{ value }} < 50 THEN 5
        WHEN {{ value }} < 100 THEN 0
        WHEN {{ value }} < 110 THEN 1
        WHEN {{ value }} < 120 THEN 5
        WHEN {{ value }} < 140 THEN 7
        WHEN {{ value }} < 155 THEN 13
        WHEN {{ value }} >= 155 THEN 17
    END
    {%- elif variable == 'mbp' -%}
    CASE
        WHEN {{ value }} < 40 THEN 23
        WHEN {{ value }} < 60 THEN 15
        WHEN {{ value }} < 70 THEN 7
        WHEN {{ value }} < 80 THEN 6
        WHEN {{ value }} < 100 THEN 0
        WHEN {{ value }} < 120 THEN 4
        WHEN {{ value }} < 130 THEN 7
        WHEN {{ value }} < 140 THEN 9
        WHEN {{ value }} >= 140 THEN 10
    END
    {%- elif variable == 'temperature' -%}
    CASE
        WHEN {{ value }} < 33.0 THEN 20
        WHEN {{ value }} < 33.5 THEN 16
        WHEN {{ value }} < 34.0 THEN 13
        WHEN {{ value }} < 35.0 THEN 8
        WHEN {{ value }} < 36.0 THEN 2
        WHEN {{ value }} < 40.0 THEN 0
        WHEN {{ value }} >= 40.0 THEN 4
    END
    {%- elif variable == 'resp_rate' -%}
    CASE
        -- A slow rate on the ventilator is set, not the patient's: no points.
        WHEN {{ vent }} = 1 AND {{ value }} < 14 THEN 0
        WHEN {{ value }} < 6 THEN 17
        WHEN {{ value }} < 12 THEN 8
        WHEN {{ value }} < 14 THEN 7
        WHEN {{ value }} < 25 THEN 0
        WHEN {{ value }} < 35 THEN 6
        WHEN {{ value }} < 40 THEN 9
        WHEN {{ value }} < 50 THEN 11
        WHEN {{ value }} >= 50 THEN 18
    END
    {%- elif variable == 'hematocrit' -%}
    CASE
        WHEN {{ value }} < 41.0 THEN 3
        WHEN {{ value }} < 50.0 THEN 0
        WHEN {{ value }} >= 50.0 THEN 3
    END
    {%- elif variable == 'wbc' -%}
    CASE
        WHEN {{ value }} < 1.0 THEN 19
        WHEN {{ value }} < 3.0 THEN 5
        WHEN {{ value }} < 20.0 THEN 0
        WHEN {{ value }} < 25.0 THEN 1
        WHEN {{ value }} >= 25.0 THEN 5
    END
    {%- elif variable == 'creatinine' -%}
    CASE
        -- With acute renal failure only creatinine >= 1.5 mg/dL scores (10 points).
        WHEN {{ arf }} = 1 AND {{ value }} < 1.5 THEN 0
        WHEN {{ arf }} = 1 AND {{ value }} >= 1.5 THEN 10
        WHEN {{ value }} < 0.5 THEN 3
        WHEN {{ value }} < 1.5 THEN 0
        WHEN {{ value }} < 1.95 THEN 4
        WHEN {{ value }} >= 1.95 THEN 7
    END
    {%- elif variable == 'bun' -%}
    CASE
        WHEN {{ value }} < 17.0 THEN 0
        WHEN {{ value }} < 20.0 THEN 2
        WHEN {{ value }} < 40.0 THEN 7
        WHEN {{ value }} < 80.0 THEN 11
        WHEN {{ value }} >= 80.0 THEN 12
    END
    {%- elif variable == 'sodium' -%}
    CASE
        WHEN {{ value }} < 120 THEN 3
        WHEN {{ value }} < 135 THEN 2
        WHEN {{ value }} < 155 THEN 0
        WHEN {{ value }} >= 155 THEN 4
    END
    {%- elif variable == 'albumin' -%}
    CASE
        WHEN {{ value }} < 2.0 THEN 11
        WHEN {{ value }} < 2.5 THEN 6
        WHEN {{ value }} < 4.5 THEN 0
        WHEN {{ value }} >= 4.5 THEN 4
    END
    {%- elif variable == 'bilirubin' -%}
    CASE
        WHEN {{ value }} < 2.0 THEN 0
        WHEN {{ value }} < 3.0 THEN 5
        WHEN {{ value }} < 5.0 THEN 6
        WHEN {{ value }} < 8.0 THEN 8
        WHEN {{ value }} >= 8.0 THEN 16
    END
    {%- elif variable == 'glucose' -%}
    CASE
        WHEN {{ value }} < 40 THEN 8
        WHEN {{ value }} < 60 THEN 9
        WHEN {{ value }} < 200 THEN 0
        WHEN {{ value }} < 350 THEN 3
        WHEN {{ value }} >= 350 THEN 5
    END
    {%- else -%}
    {{ exceptions.raise_compiler_error("apsiii_points: unknown variable '" ~ variable ~ "'") }}
    {%- endif -%}
{%- endmacro %}


{#-
  apsiii_scored_extreme(variable, min_value, max_value, min_points, max_points, arf):
  which of a variable's two first-day extremes scores. The extreme farther from the
  variable's normal midpoint (below), ties to the higher points; BUN and bilirubin
  always score their highest value, and so does creatinine with acute renal failure
  (`arf` 1; otherwise its midpoint is 1.0 mg/dL). `min_points`/`max_points` are the
  apsiii_points of `min_value`/`max_value`.
-#}
{% macro apsiii_normal_midpoints() -%}
    {{ return({
        'heart_rate': 75, 'mbp': 90, 'temperature': 38, 'resp_rate': 19, 'hematocrit': 45.5,
        'wbc': 11.5, 'creatinine': 1, 'sodium': 145.5, 'albumin': 3.5, 'glucose': 130,
    }) }}
{%- endmacro %}

{% macro apsiii_scored_extreme(variable, min_value, max_value, min_points, max_points, arf='arf') -%}
    {%- if variable in ('bun', 'bilirubin') -%}
    {{ max_points }}
    {%- else -%}
    {%- set midpoint = apsiii_normal_midpoints()[variable] -%}
    CASE
        {%- if variable == 'creatinine' %}
        WHEN {{ arf }} = 1 THEN {{ max_points }}
        {%- endif %}
        WHEN ABS({{ max_value }} - {{ midpoint }}) > ABS({{ min_value }} - {{ midpoint }}) THEN {{ max_points }}
        WHEN ABS({{ max_value }} - {{ midpoint }}) < ABS({{ min_value }} - {{ midpoint }}) THEN {{ min_points }}
        WHEN {{ max_points }} >= {{ min_points }} THEN {{ max_points }}
        WHEN {{ max_points }} < {{ min_points }} THEN {{ min_points }}
    END
    {%- endif -%}
{%- endmacro %}


{#- apsiii_urine_output_points(urineoutput): points of the first-day urine output (mL). -#}
{% macro apsiii_urine_output_points(urineoutput) -%}
    CASE
        WHEN {{ urineoutput }} < 400 THEN 15
        WHEN {{ urineoutput }} < 600 THEN 8
        WHEN {{ urineoutput }} < 900 THEN 7
        WHEN {{ urineoutput }} < 1500 THEN 5
        WHEN {{ urineoutput }} < 2000 THEN 4
        WHEN {{ urineoutput }} < 4000 THEN 0
        WHEN {{ urineoutput }} >= 4000 THEN 1
    END
{%- endmacro %}


{#-
  apsiii_gcs_points(eyes, verbal, motor, unable): neurological points from the GCS
  components (Knaus 1991 grid); 0 when the patient could not be assessed (`unable` 1:
  sedated or intubated); NULL for combinations the grid leaves out (eyes closed but
  talking).
-#}
{% macro apsiii_gcs_points(eyes='gcs_eyes', verbal='gcs_verbal', motor='gcs_motor', unable='gcs_unable') -%}
    CASE
        WHEN {{ unable }} = 1 THEN 0
        WHEN {{ eyes }} = 1 THEN
            CASE
                WHEN {{ verbal }} = 1 AND {{ motor }} IN (1, 2) THEN 48
                WHEN {{ verbal }} = 1 AND {{ motor }} IN (3, 4) THEN 33
                WHEN {{ verbal }} = 1 AND {{ motor }} IN (5, 6) THEN 16
                WHEN {{ verbal }} IN (2, 3) AND {{ motor }} IN (1, 2) THEN 29
                WHEN {{ verbal }} IN (2, 3) AND {{ motor }} IN (3, 4) THEN 24
            END
        WHEN {{ eyes }} > 1 THEN
            CASE
                WHEN {{ verbal }} = 1 AND {{ motor }} IN (1, 2) THEN 29
                WHEN {{ verbal }} = 1 AND {{ motor }} IN (3, 4) THEN 24
                WHEN {{ verbal }} = 1 AND {{ motor }} IN (5, 6) THEN 15
                WHEN {{ verbal }} IN (2, 3) AND {{ motor }} IN (1, 2) THEN 29
                WHEN {{ verbal }} IN (2, 3) AND {{ motor }} IN (3, 4) THEN 24
                WHEN {{ verbal }} IN (2, 3) AND {{ motor }} = 5 THEN 13
                WHEN {{ verbal }} IN (2, 3) AND {{ motor }} = 6 THEN 10
                WHEN {{ verbal }} = 4 AND {{ motor }} IN (1, 2, 3, 4) THEN 13
                WHEN {{ verbal }} = 4 AND {{ motor }} = 5 THEN 8
                WHEN {{ verbal }} = 4 AND {{ motor }} = 6 THEN 3
                WHEN {{ verbal }} = 5 AND {{ motor }} IN (1, 2, 3, 4, 5) THEN 3
                WHEN {{ verbal }} = 5 AND {{ motor }} = 6 THEN 0
            END
    END
{%- endmacro %}


{#-
  apsiii_oxygenation_points(pao2, aado2): PaO2 (a gas off invasive ventilation with
  FiO2 < 50 %) when there is one, otherwise the A-a gradient (a ventilated gas with
  FiO2 >= 50 %). Which gases qualify is the caller's.
-#}
{% macro apsiii_oxygenation_points(pao2='pao2', aado2='aado2') -%}
    CASE
        WHEN {{ pao2 }} IS NOT NULL THEN
            CASE WHEN {{ pao2 }} < 50 THEN 15 WHEN {{ pao2 }} < 70 THEN 5 WHEN {{ pao2 }} < 80 THEN 2 ELSE 0 END
        WHEN {{ aado2 }} IS NOT NULL THEN
            CASE
                WHEN {{ aado2 }} < 100 THEN 0
                WHEN {{ aado2 }} < 250 THEN 7
                WHEN {{ aado2 }} < 350 THEN 9
                WHEN {{ aado2 }} < 500 THEN 11
                ELSE 14
            END
    END
{%- endmacro %}


{#-
  apsiii_acid_base_points(ph, pco2): points of one gas's pH and PaCO2 pair (Knaus 1991
  acid-base grid); the worst gas scores. Callers keep only gases with both values (a
  missing PaCO2 would fall to a grid cell's last band).
-#}
{% macro apsiii_acid_base_points(ph='ph', pco2='pco2') -%}
    CASE
        WHEN {{ ph }} < 7.20 THEN
            CASE WHEN {{ pco2 }} < 50 THEN 12 ELSE 4 END
        WHEN {{ ph }} < 7.30 THEN
            CASE WHEN {{ pco2 }} < 30 THEN 9 WHEN {{ pco2 }} < 40 THEN 6 WHEN {{ pco2 }} < 50 THEN 3 ELSE 2 END
        WHEN {{ ph }} < 7.35 THEN
            CASE WHEN {{ pco2 }} < 30 THEN 9 WHEN {{ pco2 }} < 45 THEN 0 ELSE 1 END
        WHEN {{ ph }} < 7.45 THEN
            CASE WHEN {{ pco2 }} < 30 THEN 5 WHEN {{ pco2 }} < 45 THEN 0 ELSE 1 END
        WHEN {{ ph }} < 7.50 THEN
            CASE WHEN {{ pco2 }} < 30 THEN 5 WHEN {{ pco2 }} < 35 THEN 0 WHEN {{ pco2 }} < 45 THEN 2 ELSE 12 END
        WHEN {{ ph }} < 7.60 THEN
            CASE WHEN {{ pco2 }} < 40 THEN 3 ELSE 12 END
        ELSE
            CASE WHEN {{ pco2 }} < 25 THEN 0 WHEN {{ pco2 }} < 40 THEN 3 ELSE 12 END
    END
{%- endmacro %}
