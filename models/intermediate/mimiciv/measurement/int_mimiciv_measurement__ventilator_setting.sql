-- Ventilator settings, one row per subject and charttime.
-- mimic-code: mimic-iv/concepts/measurement/ventilator_setting.sql (m4-infra snapshot).
-- Item ids come from the seed mimiciv_ventilator_setting_items.
{{ config(alias='ventilator_setting') }}

{%- set numeric_concepts = [
    'respiratory_rate_set', 'respiratory_rate_total', 'respiratory_rate_spontaneous',
    'minute_volume', 'tidal_volume_set', 'tidal_volume_observed', 'tidal_volume_spontaneous',
    'plateau_pressure', 'peep', 'fio2', 'flow_rate'] %}
{%- set text_concepts = ['ventilator_mode', 'ventilator_mode_hamilton', 'ventilator_type'] %}

WITH setting_items AS (

    SELECT
        itemid,
        concept
    FROM {{ ref('mimiciv_ventilator_setting_items') }}

),

setting_rows AS (

    SELECT
        ce.subject_id,
        ce.stay_id,
        ce.charttime,
        items.concept,
        ce.value,
        CASE
            -- FiO2: a fraction in [0.2, 1] becomes a percentage, (1, 20) is implausible,
            -- [20, 100] is kept, anything else is NULL
            WHEN items.concept = 'fio2' THEN
                CASE
                    WHEN ce.valuenum >= 0.20 AND ce.valuenum <= 1 THEN ce.valuenum * 100
                    WHEN ce.valuenum > 1 AND ce.valuenum < 20 THEN NULL
                    WHEN ce.valuenum >= 20 AND ce.valuenum <= 100 THEN ce.valuenum
                END
            -- PEEP outside [0, 100] cmH2O is implausible
            WHEN items.concept = 'peep' THEN
                CASE
                    WHEN ce.valuenum > 100 THEN NULL
                    WHEN ce.valuenum < 0 THEN NULL
                    ELSE ce.valuenum
                END
            ELSE ce.valuenum
        END AS valuenum
    FROM {{ ref('int_mimiciv_events__chartevents_used') }} AS ce
    INNER JOIN setting_items AS items
        ON ce.itemid = items.itemid
    WHERE
        ce.value IS NOT NULL
        AND ce.stay_id IS NOT NULL

),

settings_per_charttime AS (

    SELECT
        subject_id,
        MAX(stay_id) AS stay_id,
        charttime
        {%- for concept in numeric_concepts %},
        MAX(CASE WHEN concept = '{{ concept }}' THEN valuenum END) AS {{ concept }}
        {%- endfor %}
        {%- for concept in text_concepts %},
        MAX(CASE WHEN concept = '{{ concept }}' THEN value END) AS {{ concept }}
        {%- endfor %}
    FROM setting_rows
    GROUP BY subject_id, charttime

)

SELECT * FROM settings_per_charttime
