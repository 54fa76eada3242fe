{#-
  Rule: what pandas makes of a CSV cell, and of a column.
  M4Bench reads both CSVs with pandas (only empty cells are missing) and lets
  pandas infer each column's dtype from its cells. These macros restate that
  inference in SQL over a cell held as text (NULL = empty cell).
-#}

{#- A value pandas' CSV reader takes as a boolean. -#}
{% macro m4_is_bool(value) -%}
    ({{ value }} IN ('True', 'TRUE', 'true', 'False', 'FALSE', 'false'))
{%- endmacro %}

{#- A cell's text cast to DOUBLE (NULL when it is not a number). A text with ':'
    is never one, and skipping its cast matters: a failing cast costs several
    times a succeeding one, and every timestamp cell would fail. -#}
{% macro m4_double(value) -%}
    CASE WHEN {{ value }} IS NULL OR contains({{ value }}, ':') THEN NULL ELSE TRY_CAST({{ value }} AS DOUBLE) END
{%- endmacro %}

{#- The kind of a cell, from its text and its double (`number`, m4_double, computed once):
    'missing' (an empty cell), 'int' (a number without '.', exponent or 'n'),
    'float' (another number: DuckDB's double cast accepts what pandas' float
    parser accepts, except 'nan' and '_' digit separators), 'bool', or 'text'. -#}
{% macro m4_cell_kind(value, number) -%}
    CASE
        WHEN {{ value }} IS NULL THEN {{ m4_kind('missing') }}
        WHEN {{ number }} IS NULL OR isnan({{ number }}) OR contains({{ value }}, '_')
            THEN CASE WHEN {{ m4_is_bool(value) }} THEN {{ m4_kind('bool') }} ELSE {{ m4_kind('text') }} END
        WHEN contains({{ value }}, '.') OR contains({{ value }}, 'e') OR contains({{ value }}, 'E')
            OR contains({{ value }}, 'n') OR contains({{ value }}, 'N') THEN {{ m4_kind('float') }}
        ELSE {{ m4_kind('int') }}
    END
{%- endmacro %}

{#- A cell kind by its name, as a value of the kinds' enumeration: compared with its name like text
    ("kind = 'int'"), held in a byte (the counting pass groups rows by their cells' kinds). -#}
{% macro m4_kind(name) -%}
    CAST('{{ name }}' AS ENUM('missing', 'int', 'float', 'bool', 'text'))
{%- endmacro %}

{#- Whether a cell of kind `kind` (m4_cell_kind) is a number to pandas' float parser. -#}
{% macro m4_is_number_kind(kind) -%}
    ({{ kind }} IN ('int', 'float'))
{%- endmacro %}

{#- pandas' float parse of a cell's text (an int or another float). -#}
{% macro m4_is_float(value) -%}
    {{ m4_is_number_kind(m4_cell_kind(value, m4_double(value))) }}
{%- endmacro %}

{#- The number pandas subtracts for a cell of kind `kind` (its double `number`):
    a number's value, 1 or 0 for True or False; NULL for anything else. -#}
{% macro m4_cell_number(value, kind, number) -%}
    CASE
        WHEN {{ m4_is_number_kind(kind) }} THEN {{ number }}
        WHEN {{ kind }} = 'bool' THEN CASE WHEN lower({{ value }}) = 'true' THEN 1.0 ELSE 0.0 END
    END
{%- endmacro %}

{#- pandas' dtype of a column from counts of its cells' kinds:
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

{#- Whether pandas' dtype `dtype` (m4_column_dtype) holds booleans: bool, or objbool (booleans
    with gaps). -#}
{% macro m4_is_bool_dtype(dtype) -%}
    ({{ dtype }} IN ('bool', 'objbool'))
{%- endmacro %}

{#- pd.to_numeric of a cell's text in a column of that dtype (NULL = NaN). -#}
{% macro m4_numeric(value, dtype) -%}
    CASE
        WHEN {{ value }} IS NULL THEN NULL
        WHEN {{ dtype }} IN ('int', 'float') THEN TRY_CAST({{ value }} AS DOUBLE)
        WHEN {{ m4_is_bool_dtype(dtype) }} THEN CASE WHEN lower({{ value }}) = 'true' THEN 1.0 ELSE 0.0 END
        WHEN {{ dtype }} = 'text' AND {{ m4_is_float(value) }} THEN TRY_CAST({{ value }} AS DOUBLE)
    END
{%- endmacro %}
