-- Supplemental oxygen: flow and up to four delivery devices, one row per subject and
-- charttime with a charted O2 flow.
-- mimic-code: mimic-iv/concepts/measurement/oxygen_delivery.sql (m4-infra snapshot).
{{ config(alias='oxygen_delivery') }}

WITH flow_rows AS (

    -- O2 Flow (223834) and O2 Flow (lpm) #2 (227582) are one measurement; 227287 is the
    -- additional flow. When one is charted twice at a time, the last stored counts (on
    -- equal storetimes the larger value, as in mimic-code HEAD; the m4-infra snapshot
    -- leaves that tie unspecified).
    SELECT
        subject_id,
        stay_id,
        charttime,
        CASE WHEN itemid IN (223834, 227582) THEN 223834 ELSE itemid END AS itemid,
        valuenum,
        storetime
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        value IS NOT NULL
        AND itemid IN (223834, 227582, 227287)

),

ranked_flow AS (

    SELECT
        subject_id,
        stay_id,
        charttime,
        itemid,
        valuenum,
        ROW_NUMBER() OVER (
            PARTITION BY subject_id, charttime, itemid ORDER BY storetime DESC, valuenum DESC
        ) AS storage_recency
    FROM flow_rows

),

latest_flow AS (

    SELECT
        subject_id,
        stay_id,
        charttime,
        itemid,
        valuenum
    FROM ranked_flow
    WHERE storage_recency = 1

),

devices AS (

    -- O2 Delivery Device(s) (226732), numbered in alphabetical order per charttime
    SELECT
        subject_id,
        charttime,
        value AS o2_device,
        ROW_NUMBER() OVER (
            PARTITION BY subject_id, charttime ORDER BY value NULLS FIRST
        ) AS device_seq
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE itemid = 226732

),

flow_with_devices AS (

    -- Devices are attached to the flows charted at the same time; as in mimic-code (a
    -- full join filtered on the flow side), devices charted without a flow are dropped.
    SELECT
        flow.subject_id,
        flow.stay_id,
        flow.charttime,
        flow.itemid,
        flow.valuenum,
        dev.o2_device,
        dev.device_seq
    FROM latest_flow AS flow
    LEFT JOIN devices AS dev
        ON
            flow.subject_id = dev.subject_id
            AND flow.charttime = dev.charttime

),

oxygen_per_charttime AS (

    SELECT
        subject_id,
        MAX(stay_id) AS stay_id,
        charttime,
        MAX(CASE WHEN itemid = 223834 THEN valuenum END) AS o2_flow,
        MAX(CASE WHEN itemid = 227287 THEN valuenum END) AS o2_flow_additional,
        MAX(CASE WHEN device_seq = 1 THEN o2_device END) AS o2_delivery_device_1,
        MAX(CASE WHEN device_seq = 2 THEN o2_device END) AS o2_delivery_device_2,
        MAX(CASE WHEN device_seq = 3 THEN o2_device END) AS o2_delivery_device_3,
        MAX(CASE WHEN device_seq = 4 THEN o2_device END) AS o2_delivery_device_4
    FROM flow_with_devices
    GROUP BY subject_id, charttime

)

SELECT * FROM oxygen_per_charttime
