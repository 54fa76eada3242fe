{#-
  The suspicion-of-infection reference's SQL (model ref_suspicion_infection), under its conventions
  as declared in models/marts/reference/ref_suspicion_infection.yml, or with `flip` changing one of
  them (a variant, docs/explain.md). Seymour CW et al. JAMA 2016;315:762-774.
-#}
{% macro m4_reference_suspicion_infection(flip={}) %}
{%- set conventions = m4_conventions('ref_suspicion_infection', ['antibiotic_order', 'culture_order', 'culture_windows'], flip) -%}

WITH suspicion AS (
    -- Macro suspicion_of_infection, shared with the suspicion_of_infection concept; the
    -- benchmark's tie-breaks differ from mimic-code's (conventions antibiotic_order and
    -- culture_order): antibiotics are numbered per patient (ab_id) by start, stop, drug name,
    -- hadm_id and stay_id (no route), NULLs first; the first culture is the earliest by date,
    -- time and specimen id, NULLs first. Cultures pair from 72 h before to 24 h after the
    -- antibiotic (convention culture_windows).
    {{ suspicion_of_infection(
        antibiotic_order=conventions.antibiotic_order.order_by,
        culture_order=conventions.culture_order.order_by,
        before_hours=conventions.culture_windows.before_hours,
        after_hours=conventions.culture_windows.after_hours,
    ) }}
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(ab_id AS BIGINT) AS ab_id,
    CAST(antibiotic AS {{ m4_type('string') }}) AS antibiotic,
    CAST(antibiotic_time AS {{ m4_type('datetime') }}) AS antibiotic_time,
    CAST(suspected_infection AS INTEGER) AS suspected_infection,
    CAST(suspected_infection_time AS {{ m4_type('datetime') }}) AS suspected_infection_time,
    CAST(culture_time AS {{ m4_type('datetime') }}) AS culture_time,
    CAST(specimen AS {{ m4_type('string') }}) AS specimen,
    CAST(positive_culture AS INTEGER) AS positive_culture
FROM suspicion
{% endmacro %}
