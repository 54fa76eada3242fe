{#-
  The baseline serum creatinine of an admission from its lowest creatinine (`scr_min`), its chronic
  kidney disease flag (`ckd`, 1 when coded) and the MDRD estimate at eGFR 75 (`mdrd_est`), by `rule`:
  - hierarchical (mimic-code's creatinine_baseline, the reference's): the lowest value when it is
    normal (<= 1.1 mg/dL), else the lowest value when the patient has CKD, else the MDRD estimate;
    an admission with CKD and no creatinine gets NULL, or the MDRD estimate when `unmeasured_ckd` is
    'mdrd';
  - lowest_measured: the lowest value whenever there is one, else the MDRD estimate;
  - mdrd_estimate: the MDRD estimate for every admission.
  Shared by the creatinine_baseline concept and the creatinine-baseline reference, whose variants
  read the rule otherwise (docs/explain.md).
-#}
{% macro creatinine_baseline_rule(scr_min, ckd, mdrd_est, rule='hierarchical', unmeasured_ckd='null') -%}
    {%- if rule == 'hierarchical' -%}
        CASE
            WHEN {{ scr_min }} <= 1.1 THEN {{ scr_min }}
            WHEN {{ ckd }} = 1 THEN {{ scr_min if unmeasured_ckd == 'null' else 'COALESCE(' ~ scr_min ~ ', ' ~ mdrd_est ~ ')' }}
            ELSE {{ mdrd_est }}
        END
    {%- elif rule == 'lowest_measured' -%}
        COALESCE({{ scr_min }}, {{ mdrd_est }})
    {%- elif rule == 'mdrd_estimate' -%}
        {{ mdrd_est }}
    {%- else -%}
        {{ exceptions.raise_compiler_error('creatinine_baseline_rule: no rule ' ~ rule) }}
    {%- endif -%}
{%- endmacro %}
