-- Continuous renal replacement therapy (CRRT) settings charted at each time of an ICU stay.
-- mimic-code: mimic-iv/concepts/treatment/crrt.sql (m4-infra snapshot).
{{ config(alias='crrt') }}

{#- Output columns in mimic-code's order, each with the chartevents field it is read from. #}
{%- set settings = [
    ('crrt_mode', 'text'),
    ('access_pressure', 'numeric'),
    ('blood_flow', 'numeric'),
    ('citrate', 'numeric'),
    ('current_goal', 'numeric'),
    ('dialysate_fluid', 'text'),
    ('dialysate_rate', 'numeric'),
    ('effluent_pressure', 'numeric'),
    ('filter_pressure', 'numeric'),
    ('heparin_concentration', 'text'),
    ('heparin_dose', 'numeric'),
    ('hourly_patient_fluid_removal', 'numeric'),
    ('prefilter_replacement_rate', 'numeric'),
    ('postfilter_replacement_rate', 'numeric'),
    ('replacement_fluid', 'text'),
    ('replacement_rate', 'numeric'),
    ('return_pressure', 'numeric'),
    ('ultrafiltrate_output', 'numeric'),
] %}

WITH crrt_items AS (

    SELECT
        itemid,
        crrt_setting,
        value_column
    FROM {{ ref('crrt_chart_items') }}

),

integrity_states AS (

    SELECT
        system_integrity,
        system_active,
        clots,
        clots_increasing,
        clotted
    FROM {{ ref('crrt_system_integrity_states') }}

),

chartevents AS (

    SELECT
        stay_id,
        charttime,
        itemid,
        value,
        valuenum
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}

),

crrt_charted AS (

    -- Rows without a text value are ignored, numeric items included.
    SELECT
        ce.stay_id,
        ce.charttime,
        ci.crrt_setting,
        CASE WHEN ci.value_column = 'value' THEN ce.value END AS text_value,
        CASE WHEN ci.value_column = 'valuenum' THEN ce.valuenum END AS numeric_value
    FROM chartevents AS ce
    INNER JOIN crrt_items AS ci
        ON ce.itemid = ci.itemid
    WHERE ce.value IS NOT NULL

),

crrt_charted_states AS (

    -- System Integrity text classified into filter running / clotting flags.
    SELECT
        cc.stay_id,
        cc.charttime,
        cc.crrt_setting,
        cc.text_value,
        cc.numeric_value,
        st.system_active,
        st.clots,
        st.clots_increasing,
        st.clotted
    FROM crrt_charted AS cc
    LEFT JOIN integrity_states AS st
        ON
            cc.crrt_setting = 'system_integrity'
            AND cc.text_value = st.system_integrity

),

crrt_settings AS (

    -- One row per stay and charttime; several values of one setting keep the largest.
    SELECT
        stay_id,
        charttime,
        {%- for setting, field in settings %}
        MAX(CASE WHEN crrt_setting = '{{ setting }}' THEN {{ field }}_value END) AS {{ setting }},
        {%- endfor %}
        MAX(system_active) AS system_active,
        MAX(clots) AS clots,
        MAX(clots_increasing) AS clots_increasing,
        MAX(clotted) AS clotted
    FROM crrt_charted_states
    GROUP BY
        stay_id,
        charttime

)

SELECT * FROM crrt_settings
