{#-
  The OASIS reference's SQL (model ref_oasis_24h), under its conventions as declared in
  models/marts/reference/ref_oasis_24h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Johnson AEW, Kramer AA, Clifford GD. Crit Care Med 2013;41:1711-1718.
-#}
{% macro m4_reference_oasis_24h(flip={}) %}
{%- set conventions = m4_conventions('ref_oasis_24h', ['mechvent_statuses', 'missing_component'], flip) -%}

WITH first_day_values AS (
    -- Macro oasis_first_day_values, shared with the oasis concept: stays with an admission
    -- and a patient row (inner joins, as the original); preiculos in fractional minutes;
    -- mechvent 1 when an InvasiveVent episode starts, ends, or spans the first 24 hours;
    -- elective surgery when the admission is ELECTIVE and any service started before
    -- intime + 24 h is surgical (curr_service containing 'surg', any case, or 'ORTHO'); the
    -- ventilation statuses that count as convention mechvent_statuses reads them.
    {{ oasis_first_day_values(conventions.mechvent_statuses.statuses) }}
),

component_scores AS (
    -- Each component is NULL when its data are missing.
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        {{ oasis_points('preiculos') }} AS preiculos_score,
        {{ oasis_points('age') }} AS age_score,
        {{ oasis_points('gcs') }} AS gcs_score,
        {{ oasis_points('heart_rate') }} AS heart_rate_score,
        {{ oasis_points('mbp') }} AS mbp_score,
        {{ oasis_points('resp_rate') }} AS resp_rate_score,
        {{ oasis_points('temperature') }} AS temp_score,
        {{ oasis_points('urineoutput') }} AS urineoutput_score,
        {{ oasis_points('mechvent') }} AS mechvent_score,
        {{ oasis_points('electivesurgery') }} AS electivesurgery_score
    FROM first_day_values
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(hadm_id AS INTEGER) AS hadm_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    -- A component without data scores 0 in the total; in its own column as convention
    -- missing_component reads it (documented: 0).
    CAST(
        COALESCE(preiculos_score, 0)
        + COALESCE(age_score, 0)
        + COALESCE(gcs_score, 0)
        + COALESCE(heart_rate_score, 0)
        + COALESCE(mbp_score, 0)
        + COALESCE(resp_rate_score, 0)
        + COALESCE(temp_score, 0)
        + COALESCE(urineoutput_score, 0)
        + COALESCE(mechvent_score, 0)
        + COALESCE(electivesurgery_score, 0)
        AS INTEGER
    ) AS oasis,
    CAST({{ m4_missing_as(conventions.missing_component, 'preiculos_score') }} AS INTEGER) AS preiculos_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'age_score') }} AS INTEGER) AS age_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'gcs_score') }} AS INTEGER) AS gcs_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'heart_rate_score') }} AS INTEGER) AS heart_rate_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'mbp_score') }} AS INTEGER) AS mbp_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'resp_rate_score') }} AS INTEGER) AS resp_rate_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'temp_score') }} AS INTEGER) AS temp_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'urineoutput_score') }} AS INTEGER) AS urineoutput_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'mechvent_score') }} AS INTEGER) AS mechvent_score,
    CAST({{ m4_missing_as(conventions.missing_component, 'electivesurgery_score') }} AS INTEGER) AS electivesurgery_score
FROM component_scores
{% endmacro %}
