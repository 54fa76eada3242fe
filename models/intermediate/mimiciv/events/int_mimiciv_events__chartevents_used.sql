{{ config(schema='mimiciv_events') }}
-- The one pass over mimiciv_icu.chartevents: the rows of the item ids some concept reads
-- (value sets mimiciv_vitalsign_items, mimiciv_ventilator_setting_items, crrt_chart_items,
-- rrt_items and mimiciv_chart_items), with the columns concepts read. Every concept and
-- reference reads chart events from here, never from the staging view, so the source
-- table (433 M rows in MIMIC-IV 3.1) is scanned once per build. The rows are not sorted:
-- sorting them by item cost more time and memory than the readers saved (benchmarks/README.md).
WITH used_items AS (

    SELECT itemid FROM {{ ref('mimiciv_vitalsign_items') }}
    UNION ALL
    SELECT itemid FROM {{ ref('mimiciv_ventilator_setting_items') }}
    UNION ALL
    SELECT itemid FROM {{ ref('crrt_chart_items') }}
    UNION ALL
    SELECT itemid FROM {{ ref('rrt_items') }} WHERE source_table = 'chartevents'
    UNION ALL
    SELECT itemid FROM {{ ref('mimiciv_chart_items') }}

),

used_chartevents AS (

    SELECT
        ce.subject_id,
        ce.hadm_id,
        ce.stay_id,
        ce.charttime,
        ce.storetime,
        ce.itemid,
        ce.value,
        ce.valuenum
    FROM {{ ref('stg_mimiciv_icu__chartevents') }} AS ce
    WHERE ce.itemid IN (SELECT used_items.itemid FROM used_items)

)

SELECT * FROM used_chartevents
