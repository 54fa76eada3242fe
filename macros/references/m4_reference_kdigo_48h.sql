{#-
  The KDIGO reference's SQL (model ref_kdigo_48h), under its conventions as declared in
  models/marts/reference/ref_kdigo_48h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). KDIGO AKI Work Group, Kidney Int Suppl 2012;2:1-138.
-#}
{% macro m4_reference_kdigo_48h(flip={}) %}
{%- set conventions = m4_conventions('ref_kdigo_48h', ['window', 'stage_over_window', 'missing_stage'], flip) -%}

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id, intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

stages_in_window AS (
    -- Hourly-or-event KDIGO stages charted in the window (documented: intime to intime + 48 h,
    -- both inclusive).
    SELECT
        stays.stay_id,
        stages.charttime,
        stages.aki_stage,
        stages.aki_stage_creat,
        stages.aki_stage_uo,
        stages.aki_stage_crrt
    FROM icu_stays AS stays
    INNER JOIN {{ ref('int_mimiciv_organfailure__kdigo_stages') }} AS stages
        ON stays.stay_id = stages.stay_id
        AND {{ m4_in_window('stages.charttime', 'stays.intime', conventions.window) }}
),

picked_stages AS (
    -- The stages the stay's stage is taken from (convention stage_over_window): every stage in the
    -- window (documented: the worst wins), or those charted at the window's last time.
    SELECT *
    FROM stages_in_window
    {%- if conventions.stage_over_window.last_only %}
    WHERE charttime = (
        SELECT MAX(latest.charttime) FROM stages_in_window AS latest WHERE latest.stay_id = stages_in_window.stay_id
    )
    {%- endif %}
),

worst_stage AS (
    SELECT
        stay_id,
        MAX(aki_stage) AS aki_stage,
        MAX(aki_stage_creat) AS aki_stage_creat,
        MAX(aki_stage_uo) AS aki_stage_uo,
        -- Any CRRT in the window is stage 3.
        MAX(CASE WHEN aki_stage_crrt > 0 THEN 3 ELSE 0 END) AS aki_stage_crrt
    FROM picked_stages
    GROUP BY stay_id
)

SELECT
    CAST(stays.subject_id AS INTEGER) AS subject_id,
    CAST(stays.hadm_id AS INTEGER) AS hadm_id,
    CAST(stays.stay_id AS INTEGER) AS stay_id,
    -- No staged measurement in the window (or only NULL stages): as convention missing_stage reads
    -- it (documented: stage 0).
    CAST({{ m4_missing_as(conventions.missing_stage, 'worst.aki_stage') }} AS INTEGER) AS aki_stage,
    CAST({{ m4_missing_as(conventions.missing_stage, 'worst.aki_stage_creat') }} AS INTEGER) AS aki_stage_creat,
    CAST({{ m4_missing_as(conventions.missing_stage, 'worst.aki_stage_uo') }} AS INTEGER) AS aki_stage_uo,
    CAST({{ m4_missing_as(conventions.missing_stage, 'worst.aki_stage_crrt') }} AS INTEGER) AS aki_stage_crrt
FROM icu_stays AS stays
LEFT JOIN worst_stage AS worst
    ON stays.stay_id = worst.stay_id
{% endmacro %}
