{#-
  Text semantics of M4Bench's comparison, as SQL expressions over a CSV cell
  held as text (NULL = empty cell). M4Bench reads both CSVs with pandas
  (only empty cells missing) and lets pandas infer each column's type; these
  macros reproduce that inference so every decision is taken in SQL.
-#}

{#- A value pandas' CSV reader takes as a boolean. -#}
{% macro m4_is_bool(value) -%}
    ({{ value }} IN ('True', 'TRUE', 'true', 'False', 'FALSE', 'false'))
{%- endmacro %}

{#- The shape of a timestamp text: digit runs collapsed to 'd'. pandas infers one
    format from a column's first value and parses every other value with it. -#}
{% macro m4_signature(value) -%}
    regexp_replace({{ value }}, '[0-9]+', 'd', 'g')
{%- endmacro %}

{#- The timestamp shapes pandas parses with an inferred ISO format. -#}
{% macro m4_is_timestamp_signature(signature) -%}
    regexp_full_match({{ signature }}, 'd-d-d([ T]d:d(:d(\.d)?)?(Z|[+-]d(:d)?)?)?')
{%- endmacro %}

{#- Whether a timestamp text carries a time zone (pandas makes it tz-aware). -#}
{% macro m4_has_time_zone(signature) -%}
    regexp_matches({{ signature }}, 'd:d(:d)?(\.d)?(Z|[+-]d(:d)?)$')
{%- endmacro %}

{#- Parse a timestamp text (UTC for tz-aware values); NULL when it does not parse. -#}
{% macro m4_parse_timestamp(value, signature) -%}
    CASE
        WHEN {{ m4_has_time_zone(signature) }}
            THEN timezone('UTC', TRY_CAST({{ value }} AS TIMESTAMPTZ))
        ELSE TRY_CAST({{ value }} AS TIMESTAMP)
    END
{%- endmacro %}

{#- pandas' dtype of a column from counts over its cells:
    empty (all missing: float NaN), int (all ints, none missing), float (all numeric),
    bool (all booleans, none missing), objbool (booleans with gaps), text. -#}
{% macro m4_column_dtype(n_rows, n_present, n_int, n_float, n_bool) -%}
    CASE
        WHEN {{ n_present }} = 0 THEN 'empty'
        WHEN {{ n_int }} = {{ n_rows }} THEN 'int'
        WHEN {{ n_float }} = {{ n_present }} THEN 'float'
        WHEN {{ n_bool }} = {{ n_rows }} THEN 'bool'
        WHEN {{ n_bool }} = {{ n_present }} THEN 'objbool'
        ELSE 'text'
    END
{%- endmacro %}

{#- pd.to_numeric of a cell in a column of that dtype (NULL = NaN), from its features;
    `cell` is a column prefix such as 'v.' or 'merged.truth_'. -#}
{% macro m4_numeric(cell, dtype) -%}
    CASE
        WHEN {{ cell }}value IS NULL THEN NULL
        WHEN {{ dtype }} IN ('int', 'float') THEN {{ cell }}as_double
        WHEN {{ dtype }} IN ('bool', 'objbool') THEN CASE WHEN {{ cell }}is_true THEN 1.0 ELSE 0.0 END
        WHEN {{ dtype }} = 'text' AND {{ cell }}is_float THEN {{ cell }}as_double
    END
{%- endmacro %}

{#- series.astype("string") of a cell in a column of that dtype (NULL = <NA>), from its features.
    safe: an integer too large to render gives NULL instead of an error (for candidate
    comparisons computed before the column's mode is known). -#}
{% macro m4_render(cell, dtype, safe=false) -%}
    CASE
        WHEN {{ cell }}value IS NULL THEN NULL
        WHEN {{ dtype }} = 'int' THEN CAST({{ 'TRY_CAST' if safe else 'CAST' }}({{ cell }}as_double AS HUGEINT) AS VARCHAR)
        WHEN {{ dtype }} = 'float' THEN CAST({{ cell }}as_double AS VARCHAR)
        WHEN {{ dtype }} IN ('bool', 'objbool') THEN CASE WHEN {{ cell }}is_true THEN 'True' ELSE 'False' END
        ELSE {{ cell }}value
    END
{%- endmacro %}

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
