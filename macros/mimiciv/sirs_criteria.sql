{#-
  The sirs concept's SQL (mimic-code score/sirs.sql as vendored by m4-infra 0.5.9): the SIRS
  criteria over the first day of each ICU stay (Bone RC et al. Chest 1992;101:1644-1655), each
  NULL when its data are missing. Shared by the concept (int_mimiciv_score__sirs) and the sirs-24h
  reference, whose variants read its criteria otherwise (docs/explain.md); the defaults are
  mimic-code's.

  paco2: whether an arterial PaCO2 below 32 mmHg meets the respiratory criterion (true, Bone 1992)
  or only a respiratory rate above 20 does. bands: whether immature forms (bands) above 10 % meet
  the white-cell criterion (true, Bone 1992) or only the WBC count does.
-#}
{% macro sirs_criteria(paco2=true, bands=true) %}
WITH icustays AS (

    SELECT * FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

first_day_values AS (

    SELECT
        icustays.stay_id,
        first_day_vitalsign.temperature_min,
        first_day_vitalsign.temperature_max,
        first_day_vitalsign.heart_rate_max,
        first_day_vitalsign.resp_rate_max,
        first_day_bg_art.pco2_min AS paco2_min,
        first_day_lab.wbc_min,
        first_day_lab.wbc_max,
        first_day_lab.bands_max
    FROM icustays
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_bg_art') }} AS first_day_bg_art
        ON icustays.stay_id = first_day_bg_art.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_vitalsign') }} AS first_day_vitalsign
        ON icustays.stay_id = first_day_vitalsign.stay_id
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_lab') }} AS first_day_lab
        ON icustays.stay_id = first_day_lab.stay_id

),

criteria AS (

    -- One point per criterion met (Bone 1992); NULL when the criterion's data are missing.
    SELECT
        stay_id,
        CASE
            WHEN temperature_min < 36.0 THEN 1
            WHEN temperature_max > 38.0 THEN 1
            WHEN temperature_min IS NULL THEN NULL
            ELSE 0
        END AS temp_score,
        CASE
            WHEN heart_rate_max > 90.0 THEN 1
            WHEN heart_rate_max IS NULL THEN NULL
            ELSE 0
        END AS heart_rate_score,
        CASE
            WHEN resp_rate_max > 20.0 THEN 1
            {%- if paco2 %}
            WHEN paco2_min < 32.0 THEN 1
            WHEN COALESCE(resp_rate_max, paco2_min) IS NULL THEN NULL
            {%- else %}
            WHEN resp_rate_max IS NULL THEN NULL
            {%- endif %}
            ELSE 0
        END AS resp_score,
        CASE
            -- Immature forms (bands) above 10%.
            WHEN wbc_min < 4.0 THEN 1
            WHEN wbc_max > 12.0 THEN 1
            {%- if bands %}
            WHEN bands_max > 10 THEN 1
            WHEN COALESCE(wbc_min, bands_max) IS NULL THEN NULL
            {%- else %}
            WHEN wbc_min IS NULL THEN NULL
            {%- endif %}
            ELSE 0
        END AS wbc_score
    FROM first_day_values

),

final AS (

    SELECT
        icustays.subject_id,
        icustays.hadm_id,
        icustays.stay_id,
        COALESCE(criteria.temp_score, 0) + COALESCE(criteria.heart_rate_score, 0)
        + COALESCE(criteria.resp_score, 0) + COALESCE(criteria.wbc_score, 0) AS sirs,
        criteria.temp_score,
        criteria.heart_rate_score,
        criteria.resp_score,
        criteria.wbc_score
    FROM icustays
    LEFT JOIN criteria
        ON icustays.stay_id = criteria.stay_id

)

SELECT * FROM final
{% endmacro %}
