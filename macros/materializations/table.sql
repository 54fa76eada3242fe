{#- Tables on DuckDB, rebuilt in place in one transaction (m4_rebuild_in_place.sql says why). -#}
{% materialization table, adapter='duckdb' %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {{ return(m4_rebuild_in_place(target_relation, create_table_as(False, target_relation, sql))) }}
{% endmaterialization %}
