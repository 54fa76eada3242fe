{#-
  The ventilation reference's SQL (model ref_ventilation), under its conventions as declared in
  models/marts/reference/ref_ventilation.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). The documented readings are mimic-code's ventilation concept exactly: without
  a flip the reference reads the concept (int_mimiciv_treatment__ventilation, macro
  ventilation_episodes with its defaults); a variant computes the episodes with that macro under
  its readings.
-#}
{% macro m4_reference_ventilation(flip={}) %}
{%- set conventions = m4_conventions('ref_ventilation', ['gap_from', 'single_charting', 'tracheostomy'], flip) -%}

WITH episodes AS (
    {%- if flip %}
    -- the concept's SQL under the variant's readings
    {{ ventilation_episodes(conventions.gap_from.gap_from, conventions.single_charting.single_charting,
                            conventions.tracheostomy.tracheostomy) }}
    {%- else %}
    SELECT stay_id, starttime, endtime, ventilation_status
    FROM {{ ref('int_mimiciv_treatment__ventilation') }}
    {%- endif %}
),

numbered_episodes AS (
    -- Episodes of a stay are disjoint runs of chartings, so their start times are distinct.
    SELECT
        stay_id,
        ROW_NUMBER() OVER (PARTITION BY stay_id ORDER BY starttime) AS ventilation_seq,
        starttime,
        endtime,
        ventilation_status
    FROM episodes
)

SELECT
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(ventilation_seq AS BIGINT) AS ventilation_seq,
    CAST(starttime AS {{ m4_type('datetime') }}) AS starttime,
    CAST(endtime AS {{ m4_type('datetime') }}) AS endtime,
    CAST(ventilation_status AS {{ m4_type('string') }}) AS ventilation_status
FROM numbered_episodes
{% endmacro %}
