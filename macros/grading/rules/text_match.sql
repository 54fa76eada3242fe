{#-
  Rule: when text compares, and how. A column compares as text when it is
  neither numeric on both sides nor a timestamp column on both sides
  (int_grading__column_modes decides); then a cell matches when the truth's
  string equals the agent's, each as pandas' astype("string") writes it under
  its column's dtype.
-#}

{#- series.astype("string") of a cell's text in a column of that dtype (NULL = <NA>). -#}
{% macro m4_render(value, dtype) -%}
    CASE
        WHEN {{ value }} IS NULL THEN NULL
        WHEN {{ dtype }} = 'int' THEN CAST(TRY_CAST(TRY_CAST({{ value }} AS DOUBLE) AS HUGEINT) AS VARCHAR)
        WHEN {{ dtype }} = 'float' THEN CAST(TRY_CAST({{ value }} AS DOUBLE) AS VARCHAR)
        WHEN {{ m4_is_bool_dtype(dtype) }} THEN CASE WHEN lower({{ value }}) = 'true' THEN 'True' ELSE 'False' END
        ELSE {{ value }}
    END
{%- endmacro %}

{#- Whether an agent cell (its text `agent` in a column of dtype `agent_dtype`) matches the
    truth's string `truth_render` (m4_render of the truth cell under the truth's dtype) as text.
    A missing side never matches (missing on both sides is counted apart, as M4Bench does). -#}
{% macro m4_texts_match(truth_render, agent, agent_dtype) -%}
    COALESCE({{ truth_render }} = {{ m4_render(agent, agent_dtype) }}, FALSE)
{%- endmacro %}
