-- Invasive lines (arterial, central, dialysis, PA, ...) with their site and dwell time.
-- mimic-code: mimic-iv/concepts/treatment/invasive_line.sql (m4-infra snapshot).
{{ config(alias='invasive_line') }}

WITH line_items AS (

    SELECT itemid
    FROM {{ ref('invasive_line_items') }}

),

line_type_names AS (

    SELECT
        item_label,
        line_type
    FROM {{ ref('invasive_line_type_names') }}

),

line_site_names AS (

    SELECT
        charted_site,
        line_site
    FROM {{ ref('invasive_line_site_names') }}

),

procedureevents AS (

    SELECT
        stay_id,
        itemid,
        location,
        starttime,
        endtime
    FROM {{ ref('int_mimiciv_events__procedureevents_used') }}

),

d_items AS (

    SELECT
        itemid,
        label
    FROM {{ ref('stg_mimiciv_icu__d_items') }}

),

line_events AS (

    SELECT
        pe.stay_id,
        di.label AS item_label,
        pe.location AS charted_site,
        pe.starttime,
        pe.endtime
    FROM procedureevents AS pe
    INNER JOIN line_items AS li
        ON pe.itemid = li.itemid
    INNER JOIN d_items AS di
        ON pe.itemid = di.itemid

),

named_lines AS (

    -- Spelling variants of a line type or site are merged; unlisted names are kept as charted.
    SELECT
        le.stay_id,
        COALESCE(tn.line_type, le.item_label) AS line_type,
        COALESCE(sn.line_site, le.charted_site) AS line_site,
        le.starttime,
        le.endtime
    FROM line_events AS le
    LEFT JOIN line_type_names AS tn
        ON le.item_label = tn.item_label
    LEFT JOIN line_site_names AS sn
        ON le.charted_site = sn.charted_site

)

SELECT * FROM named_lines
