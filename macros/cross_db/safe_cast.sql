{#-
  dbt.safe_cast for DuckDB: TRY_CAST (NULL where the value does not convert).
  dbt's default is a plain CAST, which fails on the first bad value; BigQuery's
  adapter already gives SAFE_CAST. Models write {{ dbt.safe_cast(expression, type) }}
  so they stay portable to a BigQuery target.
-#}
{% macro duckdb__safe_cast(field, type) -%}
    TRY_CAST({{ field }} AS {{ type }})
{%- endmacro %}
