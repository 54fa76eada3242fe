{#-
  The MELD reference's SQL (model ref_meld_24h), under its conventions as declared in
  models/marts/reference/ref_meld_24h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Kamath PS et al. Hepatology 2001;33:464-470; Kim WR et al. N Engl J Med
  2008;359:1018-1026.
  The documented readings are mimic-code's meld concept exactly: without a flip the reference
  reads the concept (int_mimiciv_organfailure__meld, macro meld_score with its defaults); a variant
  computes the score with that macro under its readings.
-#}
{% macro m4_reference_meld_24h(flip={}) %}
{%- set conventions = m4_conventions('ref_meld_24h', ['dialysis', 'sodium_correction'], flip) -%}

WITH meld AS (
    {%- if flip %}
    -- the concept's SQL under the variant's readings
    {{ meld_score(conventions.dialysis.dialysis, conventions.sodium_correction.applied) }}
    {%- else %}
    SELECT subject_id, hadm_id, stay_id, meld
    FROM {{ ref('int_mimiciv_organfailure__meld') }}
    {%- endif %}
)

SELECT
    CAST(meld.subject_id AS INTEGER) AS subject_id,
    CAST(meld.hadm_id AS INTEGER) AS hadm_id,
    CAST(meld.stay_id AS INTEGER) AS stay_id,
    CAST(meld.meld AS {{ m4_type('double') }}) AS meld
FROM meld
{% endmacro %}
