{#-
    Views on DuckDB, replaced in place in one transaction: the view counterpart of this folder's
    table materialization (table.sql says why). The view is created by the adapter's own
    `create_view_as`. BigQuery keeps dbt's materialization.
-#}
{% materialization view, adapter='duckdb' %}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='view') -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% call statement('main') -%}
    {{ m4_drop_for_rebuild(existing_relation) }}
    {{ get_create_view_as_sql(target_relation, sql) }}
  {%- endcall %}
  {%- if existing_relation is not none %}{% do adapter.cache_dropped(existing_relation) %}{% endif %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {% do persist_docs(target_relation, model) %}
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
