{#-
  Model contracts on BigQuery. The contracted models' YAML types are DuckDB's names
  (double, varchar, timestamp, integer, decimal(18,3)); BigQuery knows FLOAT64, STRING,
  DATETIME (a wall-clock time, MIMIC-IV's type there), INT64, NUMERIC. These overrides of
  dbt-bigquery's contract macros translate the names before dbt builds the empty-schema
  query it compares the model with and the CREATE TABLE column list, so one YAML serves
  both targets. Names with no BigQuery counterpart pass through unchanged.
-#}

{% macro m4_bigquery_type(data_type) -%}
    {%- set plain = data_type | trim | lower -%}
    {%- set names = {
        'double': 'FLOAT64', 'float': 'FLOAT64', 'real': 'FLOAT64',
        'varchar': 'STRING', 'text': 'STRING',
        'timestamp': 'DATETIME',
        'integer': 'INT64', 'int': 'INT64', 'bigint': 'INT64', 'smallint': 'INT64',
        'boolean': 'BOOL',
    } -%}
    {%- if plain in names -%}
        {{ return(names[plain]) }}
    {%- elif plain.startswith('decimal') -%}
        {{ return('NUMERIC' ~ plain[7:]) }}
    {%- else -%}
        {{ return(data_type) }}
    {%- endif -%}
{%- endmacro %}

{#- A copy of a model's columns (name -> column dict) with BigQuery type names. -#}
{% macro m4_bigquery_columns(columns) -%}
    {%- set translated = {} -%}
    {%- for name, column in columns.items() -%}
        {%- set copy = column.copy() -%}
        {%- if copy.get('data_type') -%}
            {%- do copy.update({'data_type': m4_bigquery_type(copy['data_type'])}) -%}
        {%- endif -%}
        {%- do translated.update({name: copy}) -%}
    {%- endfor -%}
    {{ return(translated) }}
{%- endmacro %}

{% macro bigquery__get_empty_schema_sql(columns) %}
    {%- set missing = [] -%}
    {%- for column in columns.values() -%}
        {%- if column.get('data_type') is none -%}
            {%- do missing.append(column['name']) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if missing | length > 0 -%}
        {{ exceptions.column_type_missing(column_names=missing) }}
    {%- endif -%}
    {{ return(dbt.default__get_empty_schema_sql(adapter.nest_column_data_types(m4_bigquery_columns(columns)))) }}
{% endmacro %}

{% macro bigquery__get_table_columns_and_constraints() -%}
    {%- set columns = m4_bigquery_columns(model['columns']) -%}
    {%- set column_lines = adapter.render_raw_columns_constraints(raw_columns=columns) -%}
    {%- set model_constraints = adapter.render_raw_model_constraints(raw_constraints=model['constraints']) -%}
    (
    {% for line in column_lines -%}
      {{ line }}{{ "," if not loop.last or model_constraints }}
    {% endfor %}
    {% for constraint in model_constraints -%}
      {{ constraint }}{{ "," if not loop.last }}
    {% endfor -%}
    )
{%- endmacro %}
