{#-
  The OASIS points of one component (Johnson AEW et al., Crit Care Med
  2013;41:1711-18, table 2), as an expression over the first-day columns it names:
  preiculos (minutes from hospital to ICU admission), age, gcs_min,
  heart_rate_min/max, mbp_min/max, resp_rate_min/max, temperature_min/max,
  urineoutput (mL), mechvent and electivesurgery (1/0). Shared by the oasis
  concept and the oasis-24h reference, which differ in how they find some inputs
  but not in their points. NULL when the component's data are missing.
-#}
{% macro oasis_points(component) -%}
    {%- if component == 'preiculos' -%}
    CASE
        WHEN preiculos IS NULL THEN NULL
        WHEN preiculos < 10.2 THEN 5
        WHEN preiculos < 297 THEN 3
        WHEN preiculos < 1440 THEN 0
        WHEN preiculos < 18708 THEN 2
        ELSE 1
    END
    {%- elif component == 'age' -%}
    CASE
        -- Ages are fractional: an age between 89 and 90 falls in no band and scores 0.
        WHEN age IS NULL THEN NULL
        WHEN age < 24 THEN 0
        WHEN age <= 53 THEN 3
        WHEN age <= 77 THEN 6
        WHEN age <= 89 THEN 9
        WHEN age >= 90 THEN 7
        ELSE 0
    END
    {%- elif component == 'gcs' -%}
    CASE
        WHEN gcs_min IS NULL THEN NULL
        WHEN gcs_min <= 7 THEN 10
        WHEN gcs_min < 14 THEN 4
        WHEN gcs_min = 14 THEN 3
        ELSE 0
    END
    {%- elif component == 'heart_rate' -%}
    CASE
        WHEN heart_rate_max IS NULL THEN NULL
        WHEN heart_rate_max > 125 THEN 6
        WHEN heart_rate_min < 33 THEN 4
        WHEN heart_rate_max >= 107 AND heart_rate_max <= 125 THEN 3
        WHEN heart_rate_max >= 89 AND heart_rate_max <= 106 THEN 1
        ELSE 0
    END
    {%- elif component == 'mbp' -%}
    CASE
        WHEN mbp_min IS NULL THEN NULL
        WHEN mbp_min < 20.65 THEN 4
        WHEN mbp_min < 51 THEN 3
        WHEN mbp_max > 143.44 THEN 3
        WHEN mbp_min >= 51 AND mbp_min < 61.33 THEN 2
        ELSE 0
    END
    {%- elif component == 'resp_rate' -%}
    CASE
        WHEN resp_rate_min IS NULL THEN NULL
        WHEN resp_rate_min < 6 THEN 10
        WHEN resp_rate_max > 44 THEN 9
        WHEN resp_rate_max > 30 THEN 6
        WHEN resp_rate_max > 22 THEN 1
        WHEN resp_rate_min < 13 THEN 1
        ELSE 0
    END
    {%- elif component == 'temperature' -%}
    CASE
        WHEN temperature_max IS NULL THEN NULL
        WHEN temperature_max > 39.88 THEN 6
        WHEN temperature_min >= 33.22 AND temperature_min <= 35.93 THEN 4
        WHEN temperature_max >= 33.22 AND temperature_max <= 35.93 THEN 4
        WHEN temperature_min < 33.22 THEN 3
        WHEN temperature_min > 35.93 AND temperature_min <= 36.39 THEN 2
        WHEN temperature_max >= 36.89 AND temperature_max <= 39.88 THEN 2
        ELSE 0
    END
    {%- elif component == 'urineoutput' -%}
    CASE
        WHEN urineoutput IS NULL THEN NULL
        WHEN urineoutput < 671.09 THEN 10
        WHEN urineoutput > 6896.80 THEN 8
        WHEN urineoutput >= 671.09 AND urineoutput <= 1426.99 THEN 5
        WHEN urineoutput >= 1427.00 AND urineoutput <= 2544.14 THEN 1
        ELSE 0
    END
    {%- elif component == 'mechvent' -%}
    CASE WHEN mechvent IS NULL THEN NULL WHEN mechvent = 1 THEN 9 ELSE 0 END
    {%- elif component == 'electivesurgery' -%}
    CASE
        WHEN electivesurgery IS NULL THEN NULL
        WHEN electivesurgery = 1 THEN 0
        ELSE 6
    END
    {%- else -%}
    {{ exceptions.raise_compiler_error("oasis_points: unknown component '" ~ component ~ "'") }}
    {%- endif -%}
{%- endmacro %}
