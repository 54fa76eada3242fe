{#-
  Wall-clock time helpers whose spelling differs between DuckDB and BigQuery. They keep
  BigQuery in DATETIME (MIMIC-IV's type there): dbt.date_trunc would cast to TIMESTAMP,
  which BigQuery refuses to compare with a DATETIME.
-#}

{#- The start of `part` ('hour', 'day', ...) containing the time `expression`. -#}
{% macro m4_datetime_trunc(part, expression) -%}
    {{ return(adapter.dispatch('m4_datetime_trunc', 'm4agent')(part, expression)) }}
{%- endmacro %}

{% macro default__m4_datetime_trunc(part, expression) -%}
    DATE_TRUNC('{{ part }}', {{ expression }})
{%- endmacro %}

{% macro bigquery__m4_datetime_trunc(part, expression) -%}
    DATETIME_TRUNC({{ expression }}, {{ part | upper }})
{%- endmacro %}

{#- Midnight on 1 January of the integer year `year` (MIMIC-IV's anchor_year). -#}
{% macro m4_year_start(year) -%}
    {{ return(adapter.dispatch('m4_year_start', 'm4agent')(year)) }}
{%- endmacro %}

{% macro default__m4_year_start(year) -%}
    MAKE_TIMESTAMP({{ year }}, 1, 1, 0, 0, 0)
{%- endmacro %}

{% macro bigquery__m4_year_start(year) -%}
    DATETIME({{ year }}, 1, 1, 0, 0, 0)
{%- endmacro %}
