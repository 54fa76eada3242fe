-- Episodes of ventilation and oxygen therapy per ICU stay, classified from the charted
-- oxygen delivery device and ventilator mode.
-- mimic-code: mimic-iv/concepts/treatment/ventilation.sql (m4-infra snapshot).
{{ config(alias='ventilation') }}

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
        st.ventilation_status
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
                "LAG(charttime, 1) OVER (PARTITION BY stay_id, ventilation_status ORDER BY charttime NULLS FIRST)",
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
    HAVING MIN(charttime) <> MAX(charttime)

)

SELECT * FROM episodes
