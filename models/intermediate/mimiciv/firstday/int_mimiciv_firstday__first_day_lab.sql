-- Lowest and highest laboratory values of the first ICU day, one row per ICU stay.
-- mimic-code: mimic-iv/concepts/firstday/first_day_lab.sql (m4-infra snapshot).
{{ config(alias='first_day_lab') }}

{#- per source model: (column in the source, name in first_day_lab) -#}
{%- set panels = [
    ('cbc', 'int_mimiciv_measurement__complete_blood_count', [
        ('hematocrit', 'hematocrit'), ('hemoglobin', 'hemoglobin'),
        ('platelet', 'platelets'), ('wbc', 'wbc')]),
    ('chem', 'int_mimiciv_measurement__chemistry', [
        ('albumin', 'albumin'), ('globulin', 'globulin'), ('total_protein', 'total_protein'),
        ('aniongap', 'aniongap'), ('bicarbonate', 'bicarbonate'), ('bun', 'bun'),
        ('calcium', 'calcium'), ('chloride', 'chloride'), ('creatinine', 'creatinine'),
        ('glucose', 'glucose'), ('sodium', 'sodium'), ('potassium', 'potassium')]),
    ('diff', 'int_mimiciv_measurement__blood_differential', [
        ('basophils_abs', 'abs_basophils'), ('eosinophils_abs', 'abs_eosinophils'),
        ('lymphocytes_abs', 'abs_lymphocytes'), ('monocytes_abs', 'abs_monocytes'),
        ('neutrophils_abs', 'abs_neutrophils'), ('atypical_lymphocytes', 'atyps'),
        ('bands', 'bands'), ('immature_granulocytes', 'imm_granulocytes'),
        ('metamyelocytes', 'metas'), ('nrbc', 'nrbc')]),
    ('coag', 'int_mimiciv_measurement__coagulation', [
        ('d_dimer', 'd_dimer'), ('fibrinogen', 'fibrinogen'), ('thrombin', 'thrombin'),
        ('inr', 'inr'), ('pt', 'pt'), ('ptt', 'ptt')]),
    ('enz', 'int_mimiciv_measurement__enzyme', [
        ('alt', 'alt'), ('alp', 'alp'), ('ast', 'ast'), ('amylase', 'amylase'),
        ('bilirubin_total', 'bilirubin_total'), ('bilirubin_direct', 'bilirubin_direct'),
        ('bilirubin_indirect', 'bilirubin_indirect'), ('ck_cpk', 'ck_cpk'), ('ck_mb', 'ck_mb'),
        ('ggt', 'ggt'), ('ld_ldh', 'ld_ldh')]),
] %}

WITH icustays AS (

    SELECT
        subject_id,
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

{% for panel, model, columns in panels %}
{{ panel }} AS (

    -- specimens of the patient (matched on subject_id, not the stay) from 6 hours
    -- before to 24 hours after ICU admission
    SELECT
        ie.stay_id
        {%- for source_column, name in columns %},
        MIN(le.{{ source_column }}) AS {{ name }}_min,
        MAX(le.{{ source_column }}) AS {{ name }}_max
        {%- endfor %}
    FROM icustays AS ie
    LEFT JOIN {{ ref(model) }} AS le
        ON
            ie.subject_id = le.subject_id
            AND le.charttime >= {{ dbt.dateadd('hour', -6, 'ie.intime') }}
            AND le.charttime <= {{ dbt.dateadd('day', 1, 'ie.intime') }}
    GROUP BY ie.stay_id

),

{% endfor %}
first_day_labs AS (

    SELECT
        ie.subject_id,
        ie.stay_id
        {%- for panel, model, columns in panels %}
        {%- for source_column, name in columns %},
        {{ panel }}.{{ name }}_min,
        {{ panel }}.{{ name }}_max
        {%- endfor %}
        {%- endfor %}
    FROM icustays AS ie
    {%- for panel, model, columns in panels %}
    LEFT JOIN {{ panel }}
        ON ie.stay_id = {{ panel }}.stay_id
    {%- endfor %}

)

SELECT * FROM first_day_labs
