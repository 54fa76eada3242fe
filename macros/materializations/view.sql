{#- Views on DuckDB, replaced in place in one transaction (m4_rebuild_in_place.sql says why). -#}
{% materialization view, adapter='duckdb' %}
  {%- set target_relation = this.incorporate(type='view') -%}
  {{ return(m4_rebuild_in_place(target_relation, get_create_view_as_sql(target_relation, sql))) }}
{% endmaterialization %}
