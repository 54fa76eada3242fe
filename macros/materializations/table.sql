{#-
    Tables on DuckDB, built in place in one transaction (docs/scale.md, issue 28).

    dbt-duckdb's own table materialization builds `<name>__dbt_tmp`, renames the old table to
    `<name>__dbt_backup`, renames the new one into place, commits and then drops the backup, and
    queries DuckDB's catalog for constraints and indexes on the way: seven statements and about
    70 ms of dbt's work per model, more than many of our models' SQL takes. DuckDB's DDL is
    transactional, so dropping the old relation and creating the new one inside one transaction is
    just as safe (a reader sees the old table until the commit; a failed build leaves it in place),
    and it is what dbt-duckdb itself does for tables with foreign keys. The table is created by the
    adapter's own `create_table_as`, so contracts are enforced exactly as before. BigQuery keeps
    dbt's materialization (this one is for adapter duckdb only).
-#}
{% materialization table, adapter='duckdb' %}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% call statement('main') -%}
    {{ m4_drop_for_rebuild(existing_relation) }}
    {{ create_table_as(False, target_relation, sql) }}
  {%- endcall %}
  {%- if existing_relation is not none %}{% do adapter.cache_dropped(existing_relation) %}{% endif %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do persist_docs(target_relation, model) %}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
