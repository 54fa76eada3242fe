{#-
  Integer series and their expansion to rows, spelled per engine.
  m4_integer_series(start, stop): an array of start..stop, both inclusive.
  m4_unnest(array, column): a FROM item with one row per element, the element in `column`;
  refer to the column unqualified (BigQuery names the element, not a relation).
-#}
{% macro m4_integer_series(start, stop) -%}
    {{ return(adapter.dispatch('m4_integer_series', 'm4agent')(start, stop)) }}
{%- endmacro %}

{% macro default__m4_integer_series(start, stop) -%}
    GENERATE_SERIES({{ start }}, {{ stop }})
{%- endmacro %}

{% macro bigquery__m4_integer_series(start, stop) -%}
    GENERATE_ARRAY({{ start }}, {{ stop }})
{%- endmacro %}

{% macro m4_unnest(array, column) -%}
    {{ return(adapter.dispatch('m4_unnest', 'm4agent')(array, column)) }}
{%- endmacro %}

{% macro default__m4_unnest(array, column) -%}
    UNNEST({{ array }}) AS {{ column }}_values ({{ column }})
{%- endmacro %}

{% macro bigquery__m4_unnest(array, column) -%}
    UNNEST({{ array }}) AS {{ column }}
{%- endmacro %}
