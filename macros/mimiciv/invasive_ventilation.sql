{#-
  Invasive ventilation as the scores use it: the episodes of the ventilation concept
  whose status is InvasiveVent (mimic-code's ventilation table), and whether a time
  falls inside one. APS III, SAPS II, LODS and SOFA flag each blood gas with it, since
  their oxygenation rules differ for a ventilated patient.
-#}

{#- One row per InvasiveVent episode (stay_id, starttime, endtime): the body of a CTE. -#}
{% macro invasive_ventilation_episodes() -%}
    SELECT
        stay_id,
        starttime,
        endtime
    FROM {{ ref('int_mimiciv_treatment__ventilation') }}
    WHERE ventilation_status = 'InvasiveVent'
{%- endmacro %}

{#- Whether `time` falls inside the episode row `episode`, its end included; its start
    too unless `start_inclusive` is false (SAPS II, as mimic-code's sapsii). -#}
{% macro during_invasive_ventilation(time, episode, start_inclusive=true) -%}
    {{ time }} {{ '>=' if start_inclusive else '>' }} {{ episode }}.starttime
    AND {{ time }} <= {{ episode }}.endtime
{%- endmacro %}
