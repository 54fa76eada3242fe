{#-
  Type names that differ between DuckDB and BigQuery, for CASTs in models.
  m4_type('datetime'): a wall-clock time without a zone, what MIMIC-IV's times are
  (DuckDB TIMESTAMP; BigQuery DATETIME, its TIMESTAMP being an instant in UTC).
  m4_type('string'), m4_type('double'), m4_type('bigint'): text, 64-bit float, 64-bit integer.
-#}
{% macro m4_type(name) -%}
    {{ return(adapter.dispatch('m4_type', 'm4agent')(name)) }}
{%- endmacro %}

{% macro default__m4_type(name) -%}
    {%- set names = {'datetime': 'TIMESTAMP', 'string': 'VARCHAR', 'double': 'DOUBLE', 'bigint': 'BIGINT'} -%}
    {%- if name not in names -%}
        {{ exceptions.raise_compiler_error("m4_type: unknown type name '" ~ name ~ "' (one of " ~ names | list | join(', ') ~ ")") }}
    {%- endif -%}
    {{ names[name] }}
{%- endmacro %}

{% macro bigquery__m4_type(name) -%}
    {%- set names = {'datetime': 'DATETIME', 'string': 'STRING', 'double': 'FLOAT64', 'bigint': 'INT64'} -%}
    {%- if name not in names -%}
        {{ exceptions.raise_compiler_error("m4_type: unknown type name '" ~ name ~ "' (one of " ~ names | list | join(', ') ~ ")") }}
    {%- endif -%}
    {{ names[name] }}
{%- endmacro %}
