{#- A reference column as the original ground-truth CSV holds it
    (DuckDB -> pandas -> to_csv): integers plain, floats and decimals as Python
    repr, booleans True/False, timestamps '%Y-%m-%d %H:%M:%S' (dates only when
    every value is midnight; with milliseconds when any is fractional, microseconds
    when any has a sub-millisecond part). -#}
{% macro m4_render_reference_column(column_name, data_type) -%}
    {%- set col = adapter.quote(column_name) -%}
    {%- set t = data_type | upper -%}
    {%- if t == 'BOOLEAN' -%}
        CASE WHEN {{ col }} THEN 'True' WHEN NOT {{ col }} THEN 'False' END
    {%- elif t.startswith('DECIMAL') or t.startswith('NUMERIC') or t in ('DOUBLE', 'FLOAT8') -%}
        CAST(CAST({{ col }} AS DOUBLE) AS VARCHAR)
    {%- elif t.startswith('TIMESTAMP') -%}
        CASE
            WHEN bool_and(CAST({{ col }} AS TIME) = TIME '00:00:00') OVER () THEN strftime({{ col }}, '%Y-%m-%d')
            WHEN bool_or(microsecond({{ col }}) % 1000 <> 0) OVER () THEN strftime({{ col }}, '%Y-%m-%d %H:%M:%S.%f')
            WHEN bool_or(microsecond({{ col }}) % 1000000 <> 0) OVER () THEN strftime({{ col }}, '%Y-%m-%d %H:%M:%S.%g')
            ELSE strftime({{ col }}, '%Y-%m-%d %H:%M:%S')
        END
    {%- elif t == 'DATE' -%}
        strftime({{ col }}, '%Y-%m-%d')
    {%- else -%}
        CAST({{ col }} AS VARCHAR)
    {%- endif -%}
{%- endmacro %}
