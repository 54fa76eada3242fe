{#-
  KDIGO acute kidney injury stage from each criterion at one time (KDIGO Clinical Practice
  Guideline for Acute Kidney Injury, Kidney Int Suppl 2012;2:1-138, as mimic-code's
  organfailure/kdigo_stages.sql reads it). Used by the kdigo_stages concept, which the kdigo-48h
  reference reads; select-list expressions over the columns named below.
-#}

{#- Creatinine (mg/dL) against its lowest of the past 48 hours and of the past 7 days.
    Stage 3: >= 3 x the 7-day baseline, or >= 4.0 with an acute rise (a 48-hour low <= 3.7,
    i.e. a rise >= 0.3, or >= 1.5 x the 7-day baseline). Stage 2: >= 2 x the 7-day baseline.
    Stage 1: >= 0.3 above the 48-hour low, or >= 1.5 x the 7-day baseline. -#}
{% macro kdigo_creatinine_stage(creat='creat', low_48h='creat_low_past_48hr', low_7day='creat_low_past_7day') %}
CASE
    WHEN {{ creat }} >= {{ low_7day }} * 3.0 THEN 3
    WHEN
        {{ creat }} >= 4
        AND ({{ low_48h }} <= 3.7 OR {{ creat }} >= 1.5 * {{ low_7day }})
        THEN 3
    WHEN {{ creat }} >= {{ low_7day }} * 2.0 THEN 2
    WHEN {{ creat }} >= {{ low_48h }} + 0.3 THEN 1
    WHEN {{ creat }} >= {{ low_7day }} * 1.5 THEN 1
    ELSE 0
END
{%- endmacro %}

{#- Urine output rates (mL/kg/h) over 6, 12 and 24 hours (`uo`: the kdigo_uo row's alias) and
    the hours each window has documented output; `intime` the stay's ICU admission.
    Stage 3: < 0.3 over 24 hours, or anuria (0) over 12 hours. Stage 2: < 0.5 over 12 hours.
    Stage 1: < 0.5 over 6 hours. Each window needs its hours of documented output; no stage in
    the first 6 hours of the stay; no 6-hour rate means no stage at all. -#}
{% macro kdigo_urine_output_stage(uo='uo', intime='ie.intime') %}
CASE
    WHEN {{ uo }}.uo_rt_6hr IS NULL THEN NULL
    WHEN {{ uo }}.charttime <= {{ dbt.dateadd('hour', 6, intime) }} THEN 0
    WHEN {{ uo }}.uo_tm_24hr >= 24 AND {{ uo }}.uo_rt_24hr < 0.3 THEN 3
    WHEN {{ uo }}.uo_tm_12hr >= 12 AND {{ uo }}.uo_rt_12hr = 0 THEN 3
    WHEN {{ uo }}.uo_tm_12hr >= 12 AND {{ uo }}.uo_rt_12hr < 0.5 THEN 2
    WHEN {{ uo }}.uo_tm_6hr >= 6 AND {{ uo }}.uo_rt_6hr < 0.5 THEN 1
    ELSE 0
END
{%- endmacro %}
