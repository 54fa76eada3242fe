{#-
  The infusions SOFA's cardiovascular component reads (Vincent 1996: dopamine, dobutamine,
  epinephrine, norepinephrine), one row per infusion of the four medication concepts with its
  agent and rate (vaso_rate, mcg/kg/min): the body of a CTE shared by the hourly sofa concept
  (infusions running at the end of an hour) and sofa_first_day (infusions starting in a window).
-#}
{% macro sofa_vasopressor_infusions() -%}
    SELECT stay_id, starttime, endtime, 'epinephrine' AS agent, vaso_rate
    FROM {{ ref('int_mimiciv_medication__epinephrine') }}
    UNION ALL
    SELECT stay_id, starttime, endtime, 'norepinephrine' AS agent, vaso_rate
    FROM {{ ref('int_mimiciv_medication__norepinephrine') }}
    UNION ALL
    SELECT stay_id, starttime, endtime, 'dopamine' AS agent, vaso_rate
    FROM {{ ref('int_mimiciv_medication__dopamine') }}
    UNION ALL
    SELECT stay_id, starttime, endtime, 'dobutamine' AS agent, vaso_rate
    FROM {{ ref('int_mimiciv_medication__dobutamine') }}
{%- endmacro %}
