{#-
    The statement dropping a model's relation from an earlier build, for the transaction that creates
    the new one (table.sql, view.sql); nothing when there is none.
-#}
{% macro m4_drop_for_rebuild(existing_relation) -%}
  {%- if existing_relation is not none -%}
    drop {{ existing_relation.type }} {{ existing_relation }} cascade;
  {%- endif -%}
{%- endmacro %}
