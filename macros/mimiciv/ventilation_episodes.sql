{#-
  The ventilation concept's SQL (mimic-code treatment/ventilation.sql as vendored by m4-infra):
  episodes of ventilation and oxygen therapy per ICU stay, classified from the charted oxygen
  delivery device and ventilator mode. Shared by the concept (int_mimiciv_treatment__ventilation)
  and the ventilation reference's variants, which read its conventions otherwise
  (docs/explain.md); the defaults are mimic-code's.

  gap_from: the 14-hour gap that starts a new episode is measured from the previous charting of
  the same status ('same_status', mimic-code) or of any status ('any_status').
  single_charting: episodes of a single charting time are 'dropped' (mimic-code) or 'kept'.
  tracheostomy: a tracheostomy charting is its 'own_status' (mimic-code) or 'invasive'
  (InvasiveVent, so it joins an invasive episode).
-#}
{% macro ventilation_episodes(gap_from='same_status', single_charting='dropped', tracheostomy='own_status') %}
WITH ventilator_settings AS (

    SELECT
        stay_id,
        charttime,
        ventilator_mode,
        ventilator_mode_hamilton
    FROM {{ ref('int_mimiciv_measurement__ventilator_setting') }}

),

oxygen_delivery AS (

    SELECT
        stay_id,
        charttime,
        o2_delivery_device_1
    FROM {{ ref('int_mimiciv_measurement__oxygen_delivery') }}

),

statuses AS (

    SELECT
        ventilation_status,
        priority
    FROM {{ ref('ventilation_statuses') }}

),

device_classes AS (

    SELECT
        dc.o2_delivery_device,
        st.priority
    FROM {{ ref('ventilation_device_classes') }} AS dc
    INNER JOIN statuses AS st
        ON dc.ventilation_status = st.ventilation_status

),

mode_classes AS (

    SELECT
        mc.mode_source,
        mc.ventilator_mode,
        st.priority
    FROM {{ ref('ventilation_mode_classes') }} AS mc
    INNER JOIN statuses AS st
        ON mc.ventilation_status = st.ventilation_status

),

observation_times AS (

    SELECT stay_id, charttime FROM ventilator_settings
    UNION DISTINCT
    SELECT stay_id, charttime FROM oxygen_delivery

),

observations AS (

    SELECT
        tm.stay_id,
        tm.charttime,
        od.o2_delivery_device_1,
        vs.ventilator_mode,
        vs.ventilator_mode_hamilton
    FROM observation_times AS tm
    LEFT JOIN ventilator_settings AS vs
        ON
            tm.stay_id = vs.stay_id
            AND tm.charttime = vs.charttime
    LEFT JOIN oxygen_delivery AS od
        ON
            tm.stay_id = od.stay_id
            AND tm.charttime = od.charttime

),

classified_observations AS (

    -- Only the first charted device counts (m4-infra snapshot; mimic-code HEAD also
    -- treats BiPAP/CPAP masks in device slots 2-4 as non-invasive ventilation).
    -- When the device, the ventilator mode and the Hamilton mode suggest different
    -- statuses, the highest-ranked one wins: Tracheostomy > InvasiveVent >
    -- NonInvasiveVent > HFNC > SupplementalOxygen > None. Unlisted devices and modes
    -- (T-piece, Other, SPONT, Standby, ...) classify nothing.
    SELECT
        ob.stay_id,
        ob.charttime,
        {%- if tracheostomy == 'invasive' %}
        CASE WHEN st.ventilation_status = 'Tracheostomy' THEN 'InvasiveVent' ELSE st.ventilation_status END
            AS ventilation_status
        {%- else %}
        st.ventilation_status
        {%- endif %}
    FROM observations AS ob
    LEFT JOIN device_classes AS dev
        ON ob.o2_delivery_device_1 = dev.o2_delivery_device
    LEFT JOIN mode_classes AS vm
        ON
            vm.mode_source = 'ventilator_mode'
            AND ob.ventilator_mode = vm.ventilator_mode
    LEFT JOIN mode_classes AS hm
        ON
            hm.mode_source = 'ventilator_mode_hamilton'
            AND ob.ventilator_mode_hamilton = hm.ventilator_mode
    LEFT JOIN statuses AS st
        ON st.priority = LEAST(
            COALESCE(dev.priority, 99),
            COALESCE(vm.priority, 99),
            COALESCE(hm.priority, 99)
        )

),

status_changes AS (

    -- A new episode starts at a stay's first classified row, when the status changes,
    -- or when 14 hours or more have passed since the previous row with the same status.
    SELECT
        stay_id,
        charttime,
        LEAD(charttime, 1) OVER (PARTITION BY stay_id ORDER BY charttime NULLS FIRST) AS charttime_lead,
        ventilation_status,
        CASE
            WHEN LAG(ventilation_status, 1) OVER (PARTITION BY stay_id ORDER BY charttime NULLS FIRST) IS NULL
                THEN 1
            WHEN {{ dbt.datediff(
                "LAG(charttime, 1) OVER (PARTITION BY stay_id"
                ~ (", ventilation_status" if gap_from == 'same_status' else "") ~ " ORDER BY charttime NULLS FIRST)",
                "charttime",
                "microsecond"
            ) }} / 3600000000.0 >= 14
                THEN 1
            WHEN LAG(ventilation_status, 1) OVER (PARTITION BY stay_id ORDER BY charttime NULLS FIRST)
                <> ventilation_status
                THEN 1
            ELSE 0
        END AS new_ventilation_event
    FROM classified_observations
    WHERE ventilation_status IS NOT NULL

),

numbered_rows AS (

    SELECT
        stay_id,
        charttime,
        charttime_lead,
        ventilation_status,
        SUM(new_ventilation_event) OVER (
            PARTITION BY stay_id ORDER BY charttime NULLS FIRST
        ) AS vent_seq
    FROM status_changes

),

episodes AS (

    -- An episode ends at its last row, or at the next row when that follows within
    -- 14 hours. Single-row episodes are dropped.
    SELECT
        stay_id,
        MIN(charttime) AS starttime,
        MAX(
            CASE
                WHEN
                    charttime_lead IS NULL
                    OR {{ dbt.datediff("charttime", "charttime_lead", "microsecond") }} / 3600000000.0 >= 14
                    THEN charttime
                ELSE charttime_lead
            END
        ) AS endtime,
        MAX(ventilation_status) AS ventilation_status
    FROM numbered_rows
    GROUP BY
        stay_id,
        vent_seq
    {%- if single_charting == 'dropped' %}
    HAVING MIN(charttime) <> MAX(charttime)
    {%- endif %}

)

SELECT * FROM episodes
{% endmacro %}
