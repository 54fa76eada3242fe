{{ config(schema='mimiciv_events') }}
-- The one pass over mimiciv_hosp.labevents: the rows of the item ids of value set
-- mimiciv_lab_items (every lab a concept reads: the panels, blood differential, blood
-- gases, and creatinine for KDIGO), with the columns concepts read. Every concept reads
-- labs from here, never from the staging view, so the source table (158 M rows in
-- MIMIC-IV 3.1) is scanned once per build.
WITH used_items AS (

    SELECT DISTINCT itemid FROM {{ ref('mimiciv_lab_items') }}

),

used_labevents AS (

    SELECT
        le.subject_id,
        le.hadm_id,
        le.specimen_id,
        le.charttime,
        le.storetime,
        le.itemid,
        le.value,
        le.valuenum
    FROM {{ ref('stg_mimiciv_hosp__labevents') }} AS le
    WHERE le.itemid IN (SELECT used_items.itemid FROM used_items)

)

SELECT * FROM used_labevents
