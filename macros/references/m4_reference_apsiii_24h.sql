{#-
  The APS III reference's SQL (model ref_apsiii_24h), under its conventions as declared in
  models/marts/reference/ref_apsiii_24h.yml, or with `flip` changing one of them (a variant,
  docs/explain.md). Knaus WA et al. Chest 1991;100:1619-1636.
-#}
{% macro m4_reference_apsiii_24h(flip={}) %}
{%- set conventions = m4_conventions('ref_apsiii_24h', ['gas_window', 'missing_component'], flip) -%}
{#- The arterial gases' window (convention gas_window): the first day (documented) or the whole stay. -#}
{%- if conventions.gas_window.first_day -%}
    {%- set gases_until = "LEAST(icustays.outtime, " ~ dbt.dateadd('day', 1, 'icustays.intime') ~ ")" -%}
{%- else -%}
    {%- set gases_until = 'icustays.outtime' -%}
{%- endif -%}
{#- The variables scored from their lowest and highest first-day values (macros apsiii_points
    and apsiii_scored_extreme), with the names of their score columns. -#}
{%- set extremes_scored = [
    ('hr_score', 'heart_rate'),
    ('mbp_score', 'mbp'),
    ('temp_score', 'temperature'),
    ('resp_rate_score', 'resp_rate'),
    ('hematocrit_score', 'hematocrit'),
    ('wbc_score', 'wbc'),
    ('creatinine_score', 'creatinine'),
    ('bun_score', 'bun'),
    ('sodium_score', 'sodium'),
    ('albumin_score', 'albumin'),
    ('bilirubin_score', 'bilirubin'),
    ('glucose_score', 'glucose'),
] %}

WITH icu_stays AS (
    SELECT subject_id, hadm_id, stay_id, intime, outtime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}
),

first_day_values AS (
    -- Macro apsiii_first_day_values, shared with the apsiii concept: stays without an
    -- admission or patient row are left out here (inner joins, as the original) and get a
    -- NULL total below. Arterial ('ART.') gases count from intime to the earlier of outtime
    -- and intime + 24 h (end exclusive; convention gas_window), flagged when inside an invasive-ventilation episode
    -- of the stay (episode ends inclusive): the highest PaO2 of gases taken off invasive
    -- ventilation with FiO2 < 50 % (FiO2 unknown counts as 21 %), the highest A-aDO2 of
    -- gases on it with FiO2 >= 50 %, the worst acid-base points of gases with pH and PaCO2.
    -- Acute renal failure: first-day creatinine >= 1.5 mg/dL, urine < 410 mL and no CKD
    -- stage 4-6 code (seed apsiii_chronic_kidney_disease_icd; an admission without
    -- diagnoses is not ARF). Glucose: the more extreme of the laboratory and the bedside value.
    {{ apsiii_first_day_values(gases_until=gases_until) }}
),

{% for side in ['min', 'max'] %}
points_at_{{ side }} AS (
    -- Points of each variable's {{ 'lowest' if side == 'min' else 'highest' }} first-day value.
    SELECT
        stay_id,
        {%- for score, variable in extremes_scored %}
        {{ apsiii_points(variable, variable ~ '_' ~ side) }} AS {{ score }}{{ ',' if not loop.last }}
        {%- endfor %}
    FROM first_day_values
),
{% endfor %}

component_scores AS (
    SELECT
        vals.stay_id,
        -- Each variable scores the extreme farther from its normal midpoint, ties to the
        -- higher points; BUN and bilirubin (and creatinine with acute renal failure) score
        -- the highest value.
        {%- for score, variable in extremes_scored %}
        {{ apsiii_scored_extreme(variable, 'vals.' ~ variable ~ '_min', 'vals.' ~ variable ~ '_max',
                                 'at_min.' ~ score, 'at_max.' ~ score, arf='vals.arf') }} AS {{ score }},
        {%- endfor %}
        {{ apsiii_urine_output_points('vals.urineoutput') }} AS uo_score,
        -- GCS: unable to assess (intubated) scores 0; combinations outside the grid are NULL.
        {{ apsiii_gcs_points('vals.gcs_eyes', 'vals.gcs_verbal', 'vals.gcs_motor', 'vals.gcs_unable') }} AS gcs_score,
        -- Oxygenation: PaO2 when available, otherwise A-aDO2.
        {{ apsiii_oxygenation_points('vals.pao2', 'vals.aado2') }} AS pao2_aado2_score,
        vals.acidbase_score
    FROM first_day_values AS vals
    LEFT JOIN points_at_min AS at_min
        ON vals.stay_id = at_min.stay_id
    LEFT JOIN points_at_max AS at_max
        ON vals.stay_id = at_max.stay_id
),

{%- set components = [
    'hr_score', 'mbp_score', 'temp_score', 'resp_rate_score', 'pao2_aado2_score',
    'hematocrit_score', 'wbc_score', 'creatinine_score', 'uo_score', 'bun_score',
    'sodium_score', 'albumin_score', 'bilirubin_score', 'glucose_score', 'acidbase_score',
    'gcs_score',
] %}

totals AS (
    -- A component without data counts 0.
    SELECT
        stay_id,
        {%- for component in components %}
        {{ '+ ' if not loop.first }}COALESCE({{ component }}, 0)
        {%- endfor %}
        AS apsiii
    FROM component_scores
)

SELECT
    CAST(stays.subject_id AS INTEGER) AS subject_id,
    CAST(stays.hadm_id AS INTEGER) AS hadm_id,
    CAST(stays.stay_id AS INTEGER) AS stay_id,
    -- NULL only for a stay without an admission or patient row. A component without data: as
    -- convention missing_component reads it (documented: 0).
    CAST(totals.apsiii AS INTEGER) AS apsiii,
    {%- for component in components %}
    CAST({{ m4_missing_as(conventions.missing_component, 'scores.' ~ component) }} AS INTEGER)
        AS {{ component }}{{ ',' if not loop.last }}
    {%- endfor %}
FROM icu_stays AS stays
LEFT JOIN component_scores AS scores
    ON stays.stay_id = scores.stay_id
LEFT JOIN totals
    ON stays.stay_id = totals.stay_id
{% endmacro %}
