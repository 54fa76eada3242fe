{#-
  Schemas are used exactly as configured (`mimiciv_derived`, `reference`, ...),
  not prefixed with the target schema: agents and skills address
  `mimiciv_derived.sofa` by that name.
-#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
