{#-
    Rebuild a model's relation in place on DuckDB, in one transaction (docs/scale.md, issue 28): the
    body of this folder's table and view materializations, given the relation and the statement
    creating it (the adapter's own `create_table_as` or `create_view_as`, so contracts are enforced
    as by dbt-duckdb).

    dbt-duckdb's own materializations build `<name>__dbt_tmp`, rename the old relation to
    `<name>__dbt_backup`, rename the new one into place, commit and then drop the backup, querying
    DuckDB's catalog for constraints and indexes on the way: seven statements and about 70 ms of
    dbt's work per model, more than many of our models' SQL takes. DuckDB's DDL is transactional,
    so dropping the old relation and creating the new one inside one transaction is just as safe (a
    reader sees the old relation until the commit; a failed build leaves it in place); dbt-duckdb
    itself builds tables with foreign keys that way. BigQuery keeps dbt's materializations.
-#}
{% macro m4_rebuild_in_place(target_relation, create_statement) %}
  {%- set existing_relation = load_cached_relation(this) -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% call statement('main') -%}
    {% if existing_relation is not none -%}
      drop {{ existing_relation.type }} {{ existing_relation }} cascade;
    {%- endif %}
    {{ create_statement }}
  {%- endcall %}
  {%- if existing_relation is not none %}{% do adapter.cache_dropped(existing_relation) %}{% endif %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do persist_docs(target_relation, model) %}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}
{% endmacro %}
