{#-
  The SIRS reference's SQL (model ref_sirs_24h), under its conventions as declared in
  models/marts/reference/ref_sirs_24h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). ACCP/SCCM Consensus Conference. Crit Care Med 1992;20:864-874.
  The criteria and their first-day inputs are the sirs concept's: under the documented criteria
  the reference reads the concept (int_mimiciv_score__sirs, macro sirs_criteria with its
  defaults), under another reading of convention resp_criterion or wbc_criterion it computes them
  with that macro. The reference differs from the concept only in its missing data (convention
  missing_criterion).
-#}
{% macro m4_reference_sirs_24h(flip={}) %}
{%- set conventions = m4_conventions('ref_sirs_24h', ['resp_criterion', 'wbc_criterion', 'missing_criterion'],
                                     flip) -%}

WITH sirs AS (
    {%- if conventions.resp_criterion.paco2 and conventions.wbc_criterion.bands %}
    SELECT subject_id, hadm_id, stay_id, sirs, temp_score, heart_rate_score, resp_score, wbc_score
    FROM {{ ref('int_mimiciv_score__sirs') }}
    {%- else %}
    -- the concept's SQL under the variant's criteria
    {{ sirs_criteria(conventions.resp_criterion.paco2, conventions.wbc_criterion.bands) }}
    {%- endif %}
)

SELECT
    CAST(sirs.subject_id AS INTEGER) AS subject_id,
    CAST(sirs.hadm_id AS INTEGER) AS hadm_id,
    CAST(sirs.stay_id AS INTEGER) AS stay_id,
    -- The total already counts a criterion without data as not met (0).
    CAST(sirs.sirs AS INTEGER) AS sirs,
    -- A criterion without data: as convention missing_criterion reads it (documented: 0, not met).
    CAST({{ m4_missing_as(conventions.missing_criterion, 'sirs.temp_score') }} AS INTEGER) AS temp_score,
    CAST({{ m4_missing_as(conventions.missing_criterion, 'sirs.heart_rate_score') }} AS INTEGER) AS heart_rate_score,
    CAST({{ m4_missing_as(conventions.missing_criterion, 'sirs.resp_score') }} AS INTEGER) AS resp_score,
    CAST({{ m4_missing_as(conventions.missing_criterion, 'sirs.wbc_score') }} AS INTEGER) AS wbc_score
FROM sirs
{% endmacro %}
