{#-
  The urine output rate reference's SQL (model ref_urine_output_rate), under its conventions as
  declared in models/marts/reference/ref_urine_output_rate.yml, or with `flip` changing one of them
  (a variant, docs/explain.md). KDIGO AKI Work Group. Kidney Int Suppl 2012;2:1-138.
  The documented readings are mimic-code's urine_output_rate concept exactly: its SQL is the
  concept's macro (urine_output_rate) over the urine output concept's (urine_output_per_charttime).
-#}
{% macro m4_reference_urine_output_rate(flip={}) %}
{%- set conventions = m4_conventions('ref_urine_output_rate', ['window_reach', 'irrigant'], flip) -%}

WITH urine_output AS (
    -- urine per stay and charttime, the GU irrigant as convention irrigant reads it
    -- (documented: instilled volume subtracted)
    {{ urine_output_per_charttime(conventions.irrigant.irrigant_in) }}
),

rates AS (
    -- windows reaching back as convention window_reach reads it (documented: 5, 11, 23 hours)
    {{ urine_output_rate('urine_output', conventions.window_reach.reach_short_hours) }}
)

SELECT
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(charttime AS {{ m4_type('datetime') }}) AS charttime,
    CAST(weight AS {{ m4_type('double') }}) AS weight,
    CAST(uo AS {{ m4_type('double') }}) AS uo,
    CAST(urineoutput_6hr AS {{ m4_type('double') }}) AS urineoutput_6hr,
    CAST(urineoutput_12hr AS {{ m4_type('double') }}) AS urineoutput_12hr,
    CAST(urineoutput_24hr AS {{ m4_type('double') }}) AS urineoutput_24hr,
    CAST(uo_mlkghr_6hr AS {{ m4_type('double') }}) AS uo_mlkghr_6hr,
    CAST(uo_mlkghr_12hr AS {{ m4_type('double') }}) AS uo_mlkghr_12hr,
    CAST(uo_mlkghr_24hr AS {{ m4_type('double') }}) AS uo_mlkghr_24hr,
    CAST(uo_tm_6hr AS {{ m4_type('double') }}) AS uo_tm_6hr,
    CAST(uo_tm_12hr AS {{ m4_type('double') }}) AS uo_tm_12hr,
    CAST(uo_tm_24hr AS {{ m4_type('double') }}) AS uo_tm_24hr
FROM rates
{% endmacro %}
