{#-
  The Sepsis-3 reference's SQL (model ref_sepsis3), under its conventions as declared in
  models/marts/reference/ref_sepsis3.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Singer M et al. JAMA 2016;315:801-810.
  The documented readings are mimic-code's sepsis3 concept exactly: without a flip the reference
  reads the concept (int_mimiciv_sepsis__sepsis3, macro sepsis3_onset with its defaults); a
  variant computes the onset with that macro under its readings.
-#}
{% macro m4_reference_sepsis3(flip={}) %}
{%- set conventions = m4_conventions('ref_sepsis3', ['sofa_window', 'sofa_baseline', 'onset_order'], flip) -%}

WITH sepsis AS (
    {%- if flip %}
    -- the concept's SQL under the variant's readings
    {{ sepsis3_onset(conventions.sofa_window.hours_before, conventions.sofa_window.hours_after,
                     conventions.sofa_baseline.baseline, conventions.onset_order.order) }}
    {%- else %}
    SELECT
        subject_id,
        stay_id,
        antibiotic_time,
        culture_time,
        suspected_infection_time,
        sofa_time,
        sofa_score,
        respiration,
        coagulation,
        liver,
        cardiovascular,
        cns,
        renal,
        sepsis3
    FROM {{ ref('int_mimiciv_sepsis__sepsis3') }}
    {%- endif %}
)

SELECT
    CAST(subject_id AS INTEGER) AS subject_id,
    CAST(stay_id AS INTEGER) AS stay_id,
    CAST(antibiotic_time AS {{ m4_type('datetime') }}) AS antibiotic_time,
    CAST(culture_time AS {{ m4_type('datetime') }}) AS culture_time,
    CAST(suspected_infection_time AS {{ m4_type('datetime') }}) AS suspected_infection_time,
    CAST(sofa_time AS {{ m4_type('datetime') }}) AS sofa_time,
    CAST(sofa_score AS INTEGER) AS sofa_score,
    CAST(respiration AS INTEGER) AS respiration,
    CAST(coagulation AS INTEGER) AS coagulation,
    CAST(liver AS INTEGER) AS liver,
    CAST(cardiovascular AS INTEGER) AS cardiovascular,
    CAST(cns AS INTEGER) AS cns,
    CAST(renal AS INTEGER) AS renal,
    -- The concept keeps the flag as a boolean; the benchmark writes it as 0/1.
    CAST(sepsis3 AS INTEGER) AS sepsis3
FROM sepsis
{% endmacro %}
