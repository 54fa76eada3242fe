-- Renal replacement therapy (dialysis) documented at each time of an ICU stay:
-- whether dialysis is present, whether it is running, and its type when known.
-- mimic-code: mimic-iv/concepts/treatment/rrt.sql (m4-infra snapshot).
{{ config(alias='rrt') }}

WITH rrt_items AS (

    SELECT
        source_table,
        itemid,
        dialysis_active,
        active_when_value,
        dialysis_type,
        type_from_value
    FROM {{ ref('rrt_items') }}

),

chartevents AS (

    SELECT
        stay_id,
        charttime,
        itemid,
        value
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}

),

inputevents AS (

    SELECT
        stay_id,
        starttime,
        endtime,
        itemid,
        amount
    FROM {{ ref('int_mimiciv_events__inputevents_used') }}

),

procedureevents AS (

    SELECT
        stay_id,
        starttime,
        endtime,
        itemid,
        value
    FROM {{ ref('int_mimiciv_events__procedureevents_used') }}

),

charted_dialysis AS (

    -- Any charted dialysis item (with a value) means dialysis is present. It is active
    -- for items recorded only while it runs, or when Peritoneal Dialysis Catheter Status
    -- reads 'In use'. The type is the charted CRRT mode, or implied by the item.
    SELECT
        ce.stay_id,
        ce.charttime,
        1 AS dialysis_present,
        CASE
            WHEN ri.dialysis_active = 1 THEN 1
            WHEN ce.value = ri.active_when_value THEN 1
            ELSE 0
        END AS dialysis_active,
        CASE WHEN ri.type_from_value THEN ce.value ELSE ri.dialysis_type END AS dialysis_type
    FROM chartevents AS ce
    INNER JOIN rrt_items AS ri
        ON
            ce.itemid = ri.itemid
            AND ri.source_table = 'chartevents'
    WHERE ce.value IS NOT NULL

),

dialysis_periods AS (

    -- CRRT electrolyte infusions (with an amount) and dialysis procedures (with a value)
    -- give periods of dialysis; catheter and filter-change procedures are not active dialysis.
    SELECT
        ie.stay_id,
        ie.starttime,
        ie.endtime,
        1 AS dialysis_present,
        ri.dialysis_active,
        ri.dialysis_type
    FROM inputevents AS ie
    INNER JOIN rrt_items AS ri
        ON
            ie.itemid = ri.itemid
            AND ri.source_table = 'inputevents'
    WHERE ie.amount > 0
    UNION DISTINCT
    SELECT
        pe.stay_id,
        pe.starttime,
        pe.endtime,
        1 AS dialysis_present,
        ri.dialysis_active,
        ri.dialysis_type
    FROM procedureevents AS pe
    INNER JOIN rrt_items AS ri
        ON
            pe.itemid = ri.itemid
            AND ri.source_table = 'procedureevents'
    WHERE pe.value IS NOT NULL

),

dialysis_times AS (

    -- Charted times, plus the start of every period so that each period has a row.
    SELECT
        stay_id,
        charttime,
        dialysis_present,
        dialysis_active,
        dialysis_type
    FROM charted_dialysis
    UNION DISTINCT
    SELECT
        stay_id,
        starttime AS charttime,
        dialysis_present,
        dialysis_active,
        dialysis_type
    FROM dialysis_periods

),

dialysis_status AS (

    -- A time inside a period (ends included) takes the period's values; one row per
    -- overlapping period.
    SELECT
        dt.stay_id,
        dt.charttime,
        COALESCE(dp.dialysis_present, dt.dialysis_present) AS dialysis_present,
        COALESCE(dp.dialysis_active, dt.dialysis_active) AS dialysis_active,
        COALESCE(dp.dialysis_type, dt.dialysis_type) AS dialysis_type
    FROM dialysis_times AS dt
    LEFT JOIN dialysis_periods AS dp
        ON
            dt.stay_id = dp.stay_id
            AND dt.charttime >= dp.starttime
            AND dt.charttime <= dp.endtime

)

SELECT * FROM dialysis_status
