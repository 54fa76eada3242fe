{#-
  The SOFA points of each organ system (Vincent JL et al., Intensive Care Med
  1996;22:707-10, table 1), one macro per organ, each an expression over the
  columns it is given. Shared by the hourly sofa concept, first_day_sofa and the
  sofa-24h reference, which differ in their windows and inputs, so their
  cut-points cannot drift apart. Every organ scores 0-4 and is NULL when all of
  its inputs are missing; a total counts a NULL organ as 0.
-#}

{#- Respiration: PaO2/FiO2 (mmHg); below 200 and 100 only while invasively
    ventilated. `vent_ratios_score_low_points`: the hourly concept (as mimic-code's
    sofa.sql) also gives 2 and 1 point to ventilated ratios under 300 and 400. -#}
{% macro sofa_respiration_score(pao2fio2_vent, pao2fio2_novent, vent_ratios_score_low_points=false) -%}
    CASE
        WHEN {{ pao2fio2_vent }} < 100 THEN 4
        WHEN {{ pao2fio2_vent }} < 200 THEN 3
        WHEN {{ pao2fio2_novent }} < 300 THEN 2
        {%- if vent_ratios_score_low_points %}
        WHEN {{ pao2fio2_vent }} < 300 THEN 2
        {%- endif %}
        WHEN {{ pao2fio2_novent }} < 400 THEN 1
        {%- if vent_ratios_score_low_points %}
        WHEN {{ pao2fio2_vent }} < 400 THEN 1
        {%- endif %}
        WHEN COALESCE({{ pao2fio2_vent }}, {{ pao2fio2_novent }}) IS NULL THEN NULL
        ELSE 0
    END
{%- endmacro %}

{#- Coagulation: lowest platelet count (K/uL). -#}
{% macro sofa_coagulation_score(platelets) -%}
    CASE
        WHEN {{ platelets }} < 20 THEN 4
        WHEN {{ platelets }} < 50 THEN 3
        WHEN {{ platelets }} < 100 THEN 2
        WHEN {{ platelets }} < 150 THEN 1
        WHEN {{ platelets }} IS NULL THEN NULL
        ELSE 0
    END
{%- endmacro %}

{#- Liver: highest total bilirubin (mg/dL). -#}
{% macro sofa_liver_score(bilirubin) -%}
    CASE
        WHEN {{ bilirubin }} >= 12.0 THEN 4
        WHEN {{ bilirubin }} >= 6.0 THEN 3
        WHEN {{ bilirubin }} >= 2.0 THEN 2
        WHEN {{ bilirubin }} >= 1.2 THEN 1
        WHEN {{ bilirubin }} IS NULL THEN NULL
        ELSE 0
    END
{%- endmacro %}

{#- Cardiovascular: the highest vasopressor rates (mcg/kg/min; columns
    rate_dopamine, rate_dobutamine, rate_epinephrine, rate_norepinephrine) or the
    lowest MAP (mmHg) under 70. As in mimic-code, any epinephrine or
    norepinephrine rate up to 0.1 scores 3, a zero rate included;
    `low_dose_needs_a_rate` (the reference) asks for a rate above 0. -#}
{% macro sofa_cardiovascular_score(mbp, low_dose_needs_a_rate=false) -%}
    CASE
        WHEN rate_dopamine > 15 OR rate_epinephrine > 0.1 OR rate_norepinephrine > 0.1 THEN 4
        {%- if low_dose_needs_a_rate %}
        WHEN rate_dopamine > 5
            OR (rate_epinephrine > 0 AND rate_epinephrine <= 0.1)
            OR (rate_norepinephrine > 0 AND rate_norepinephrine <= 0.1)
            THEN 3
        {%- else %}
        WHEN rate_dopamine > 5 OR rate_epinephrine <= 0.1 OR rate_norepinephrine <= 0.1 THEN 3
        {%- endif %}
        WHEN rate_dopamine > 0 OR rate_dobutamine > 0 THEN 2
        WHEN {{ mbp }} < 70 THEN 1
        WHEN COALESCE({{ mbp }}, rate_dopamine, rate_dobutamine, rate_epinephrine, rate_norepinephrine) IS NULL
            THEN NULL
        ELSE 0
    END
{%- endmacro %}

{#- Central nervous system: lowest Glasgow Coma Scale. -#}
{% macro sofa_cns_score(gcs) -%}
    CASE
        WHEN {{ gcs }} >= 13 AND {{ gcs }} <= 14 THEN 1
        WHEN {{ gcs }} >= 10 AND {{ gcs }} <= 12 THEN 2
        WHEN {{ gcs }} >= 6 AND {{ gcs }} <= 9 THEN 3
        WHEN {{ gcs }} < 6 THEN 4
        WHEN {{ gcs }} IS NULL THEN NULL
        ELSE 0
    END
{%- endmacro %}

{#- Renal: highest creatinine (mg/dL) or the day's urine output (mL). -#}
{% macro sofa_renal_score(creatinine, urine_output) -%}
    CASE
        WHEN {{ creatinine }} >= 5.0 THEN 4
        WHEN {{ urine_output }} < 200 THEN 4
        WHEN {{ creatinine }} >= 3.5 AND {{ creatinine }} < 5.0 THEN 3
        WHEN {{ urine_output }} < 500 THEN 3
        WHEN {{ creatinine }} >= 2.0 AND {{ creatinine }} < 3.5 THEN 2
        WHEN {{ creatinine }} >= 1.2 AND {{ creatinine }} < 2.0 THEN 1
        WHEN COALESCE({{ urine_output }}, {{ creatinine }}) IS NULL THEN NULL
        ELSE 0
    END
{%- endmacro %}
