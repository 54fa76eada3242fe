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
    format from a column's first value and parses every other value with it.
    NULL for a text with none of '-', ':' and '/' (it cannot be a timestamp). The usual
    shapes are recognised by a round trip through strftime (cheap, and exact: a
    text equal to strftime's output has that shape); any other text goes through
    the regular expression. In a text with '/' a four-digit year is marked 'Y'
    (month/day/year and year/month/day dates, m4_slash_signatures).
    m4_signature_from takes the text's timestamp cast (`cast`, computed once: see
    m4_timestamp_cast). -#}
{% macro m4_signature(value) -%}
    {{ m4_signature_from(value, 'TRY_CAST(' ~ value ~ ' AS TIMESTAMP)') }}
{%- endmacro %}

{% macro m4_signature_from(value, cast) -%}
    CASE
        WHEN NOT (contains({{ value }}, '-') OR contains({{ value }}, ':') OR contains({{ value }}, '/')) THEN NULL
        WHEN strftime({{ cast }}, '%Y-%m-%d %H:%M:%S') = {{ value }} THEN 'd-d-d d:d:d'
        WHEN strftime({{ cast }}, '%Y-%m-%dT%H:%M:%S') = {{ value }} THEN 'd-d-dTd:d:d'
        WHEN strftime(TRY_CAST({{ value }} AS DATE), '%Y-%m-%d') = {{ value }} THEN 'd-d-d'
        WHEN contains({{ value }}, '/') THEN regexp_replace(
            regexp_replace({{ value }}, '(^|/)[0-9]{4}(/| |$)', '\1Y\2', 'g'), '[0-9]+', 'd', 'g')
        ELSE regexp_replace({{ value }}, '[0-9]+', 'd', 'g')
    END
{%- endmacro %}

{#- The shapes m4_signature_from recognises by the strftime round trip: naive,
    and parsed by a plain cast. -#}
{% macro m4_usual_signatures() -%}
    ('d-d-d d:d:d', 'd-d-dTd:d:d', 'd-d-d')
{%- endmacro %}

{#- The slash-separated shapes pandas parses with the format it infers from the
    first value: month/day/year (day/month/year when the first value's first
    number is above 12, m4_day_first) or year/month/day, each with or without
    hours and minutes or hours, minutes and seconds. -#}
{% macro m4_slash_signatures() -%}
    ('d/d/Y', 'd/d/Y d:d', 'd/d/Y d:d:d', 'Y/d/d', 'Y/d/d d:d', 'Y/d/d d:d:d')
{%- endmacro %}

{#- Whether pandas reads a column whose first value is `value` (of shape
    `signature`) day first: a day/month/year date whose first number cannot be a month. -#}
{% macro m4_day_first(value, signature) -%}
    COALESCE({{ signature }} LIKE 'd/d/Y%' AND TRY_CAST(split_part({{ value }}, '/', 1) AS INTEGER) > 12, FALSE)
{%- endmacro %}

{#- A slash-shaped text's timestamp (strptime with the format of its shape),
    month first or (day_first) day first; NULL when it does not parse. -#}
{% macro m4_parse_slash(value, signature, day_first=false) -%}
    {%- set date_part = '%d/%m/%Y' if day_first else '%m/%d/%Y' -%}
    CASE {{ signature }}
        WHEN 'd/d/Y' THEN try_strptime({{ value }}, '{{ date_part }}')
        WHEN 'd/d/Y d:d' THEN try_strptime({{ value }}, '{{ date_part }} %H:%M')
        WHEN 'd/d/Y d:d:d' THEN try_strptime({{ value }}, '{{ date_part }} %H:%M:%S')
        {%- if not day_first %}
        WHEN 'Y/d/d' THEN try_strptime({{ value }}, '%Y/%m/%d')
        WHEN 'Y/d/d d:d' THEN try_strptime({{ value }}, '%Y/%m/%d %H:%M')
        WHEN 'Y/d/d d:d:d' THEN try_strptime({{ value }}, '%Y/%m/%d %H:%M:%S')
        {%- endif %}
    END
{%- endmacro %}

{#- A cell's timestamp read day first, for day/month/year shapes only (NULL otherwise):
    used where the column's first value is read day first (m4_day_first). -#}
{% macro m4_day_first_timestamp(value, signature) -%}
    CASE WHEN {{ signature }} LIKE 'd/d/Y%' THEN {{ m4_parse_slash(value, signature, day_first=true) }} END
{%- endmacro %}

{#- A text's naive timestamp cast, only for texts that can be timestamps. -#}
{% macro m4_timestamp_cast(value) -%}
    CASE WHEN contains({{ value }}, '-') OR contains({{ value }}, ':') THEN TRY_CAST({{ value }} AS TIMESTAMP) END
{%- endmacro %}

{#- The timestamp shapes pandas parses with the format it infers (ISO, or slash dates). -#}
{% macro m4_is_timestamp_signature(signature) -%}
    CASE
        WHEN {{ signature }} IN {{ m4_usual_signatures() }} THEN TRUE
        WHEN {{ signature }} IN {{ m4_slash_signatures() }} THEN TRUE
        ELSE regexp_full_match({{ signature }}, 'd-d-d([ T]d:d(:d(\.d)?)?(Z|[+-]d(:d)?)?)?')
    END
{%- endmacro %}

{#- Whether a timestamp text carries a time zone (pandas makes it tz-aware). -#}
{% macro m4_has_time_zone(signature) -%}
    CASE
        WHEN {{ signature }} IN {{ m4_usual_signatures() }} THEN FALSE
        ELSE regexp_matches({{ signature }}, 'd:d(:d)?(\.d)?(Z|[+-]d(:d)?)$')
    END
{%- endmacro %}

{#- Parse a timestamp text (UTC for tz-aware values; slash dates month first); NULL when it does not parse. -#}
{% macro m4_parse_timestamp(value, signature) -%}
    CASE
        WHEN {{ signature }} IN {{ m4_slash_signatures() }} THEN {{ m4_parse_slash(value, signature) }}
        WHEN {{ m4_has_time_zone(signature) }}
            THEN timezone('UTC', TRY_CAST({{ value }} AS TIMESTAMPTZ))
        ELSE TRY_CAST({{ value }} AS TIMESTAMP)
    END
{%- endmacro %}

{#- A cell's text cast to DOUBLE (NULL when it is not a number). A text with ':'
    is never one, and skipping its cast matters: a failing cast costs several
    times a succeeding one, and every timestamp cell would fail. -#}
{% macro m4_double(value) -%}
    CASE WHEN contains({{ value }}, ':') THEN NULL ELSE TRY_CAST({{ value }} AS DOUBLE) END
{%- endmacro %}

{#- pandas' float parse of a cell's text (DuckDB's double cast accepts what pandas'
    float parser accepts, except 'nan' and '_' digit separators); FALSE for NULL. -#}
{% macro m4_is_float(value) -%}
    {{ m4_is_float_from(value, m4_double(value)) }}
{%- endmacro %}

{#- The same tests from a cell's text and its double cast (`number`, computed once),
    evaluated lazily: the int and boolean tests only run on the cells they can
    hold for (a float cell, a cell that is not a number). -#}
{% macro m4_is_float_from(value, number) -%}
    CASE WHEN {{ number }} IS NULL OR isnan({{ number }}) THEN FALSE ELSE NOT contains({{ value }}, '_') END
{%- endmacro %}

{% macro m4_is_int_from(value, is_float) -%}
    CASE
        WHEN NOT {{ is_float }} OR contains({{ value }}, '.') THEN FALSE
        WHEN contains({{ value }}, 'e') OR contains({{ value }}, 'E') THEN FALSE
        ELSE NOT (contains({{ value }}, 'n') OR contains({{ value }}, 'N'))
    END
{%- endmacro %}

{% macro m4_is_bool_from(value, is_float) -%}
    CASE WHEN {{ is_float }} OR {{ value }} IS NULL THEN FALSE ELSE {{ m4_is_bool(value) }} END
{%- endmacro %}

{#- pandas' int parse of a cell's text: a float without '.', exponent or 'n'. -#}
{% macro m4_is_int(value) -%}
    {{ m4_is_int_from(value, m4_is_float(value)) }}
{%- endmacro %}

{#- A cell's timestamp, parsed with its shape (`signature`, see m4_signature); NULL
    when it has none pandas parses. With the cell's naive cast (`cast`), the usual
    shapes take it instead of parsing again. -#}
{% macro m4_timestamp_from(value, signature, cast=none) -%}
    CASE
        {%- if cast %}
        WHEN {{ signature }} IN {{ m4_usual_signatures() }} THEN {{ cast }}
        {%- endif %}
        WHEN {{ m4_is_timestamp_signature(signature) }}
            THEN {{ m4_parse_timestamp(value, signature) }}
    END
{%- endmacro %}

{#- The same, computing the shape. -#}
{% macro m4_timestamp(value) -%}
    {{ m4_timestamp_from(value, m4_signature(value)) }}
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

{#- pd.to_numeric of a cell's text in a column of that dtype (NULL = NaN). -#}
{% macro m4_numeric(value, dtype) -%}
    CASE
        WHEN {{ value }} IS NULL THEN NULL
        WHEN {{ dtype }} IN ('int', 'float') THEN TRY_CAST({{ value }} AS DOUBLE)
        WHEN {{ dtype }} IN ('bool', 'objbool') THEN CASE WHEN lower({{ value }}) = 'true' THEN 1.0 ELSE 0.0 END
        WHEN {{ dtype }} = 'text' AND {{ m4_is_float(value) }} THEN TRY_CAST({{ value }} AS DOUBLE)
    END
{%- endmacro %}

{#- series.astype("string") of a cell's text in a column of that dtype (NULL = <NA>). -#}
{% macro m4_render(value, dtype) -%}
    CASE
        WHEN {{ value }} IS NULL THEN NULL
        WHEN {{ dtype }} = 'int' THEN CAST(TRY_CAST(TRY_CAST({{ value }} AS DOUBLE) AS HUGEINT) AS VARCHAR)
        WHEN {{ dtype }} = 'float' THEN CAST(TRY_CAST({{ value }} AS DOUBLE) AS VARCHAR)
        WHEN {{ dtype }} IN ('bool', 'objbool') THEN CASE WHEN lower({{ value }}) = 'true' THEN 'True' ELSE 'False' END
        ELSE {{ value }}
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
