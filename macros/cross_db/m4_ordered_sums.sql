{#-
  A sum of doubles added in a stated order, for where the original's result depends on the
  order its engine added them (urine_output_rate's covered hours). A window's values are
  gathered in the window's order with m4_window_list, then added first to last with
  m4_sum_in_order. BigQuery leaves both orders unspecified; there the sum is a plain SUM.
-#}
{% macro m4_window_list(expression) -%}
    {{ return(adapter.dispatch('m4_window_list', 'm4agent')(expression)) }}
{%- endmacro %}

{% macro default__m4_window_list(expression) -%}
    LIST({{ expression }})
{%- endmacro %}

{% macro bigquery__m4_window_list(expression) -%}
    ARRAY_AGG({{ expression }})
{%- endmacro %}

{% macro m4_sum_in_order(list) -%}
    {{ return(adapter.dispatch('m4_sum_in_order', 'm4agent')(list)) }}
{%- endmacro %}

{% macro default__m4_sum_in_order(list) -%}
    LIST_REDUCE({{ list }}, LAMBDA total, term: total + term)
{%- endmacro %}

{% macro bigquery__m4_sum_in_order(list) -%}
    (SELECT SUM(term) FROM UNNEST({{ list }}) AS term)
{%- endmacro %}
