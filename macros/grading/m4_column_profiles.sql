{#-
  One row per (owner, column) of a long table of text cells (owner = run_id or
  reference_model, ordered by row_column): the pandas dtype the CSV reader
  would infer, the kind a key column normalises to (numeric where every value
  parses, else timestamp, else text), whether the column parses as timestamps
  with the format of its first value, and M4Bench's "looks temporal" test on
  its first 50 present values.
-#}
{% macro m4_column_profiles(cells, owner, row_column) %}
WITH features AS (
    SELECT
        {{ owner }} AS owner,
        column_name,
        {{ row_column }} AS row_order,
        value,
        {{ m4_is_int('value') }} AS is_int,
        {{ m4_is_float('value') }} AS is_float,
        {{ m4_is_bool('value') }} AS is_bool,
        {{ m4_signature('value') }} AS signature
    FROM {{ cells }}
),

counts AS (
    SELECT
        owner,
        column_name,
        COUNT(*) AS n_rows,
        COUNT(value) AS n_present,
        COUNT(*) FILTER (WHERE is_int) AS n_int,
        COUNT(*) FILTER (WHERE is_float) AS n_float,
        COUNT(*) FILTER (WHERE is_bool) AS n_bool,
        ARG_MIN(signature, row_order) FILTER (WHERE value IS NOT NULL) AS first_signature
    FROM features
    GROUP BY owner, column_name
),

typed AS (
    SELECT
        counts.*,
        {{ m4_column_dtype('n_rows', 'n_present', 'n_int', 'n_float', 'n_bool') }} AS dtype
    FROM counts
),

parsed AS (
    SELECT
        features.owner,
        features.column_name,
        COUNT(*) FILTER (
            WHERE features.value IS NOT NULL
                AND features.signature = typed.first_signature
                AND {{ m4_is_timestamp_signature('typed.first_signature') }}
                AND {{ m4_parse_timestamp('features.value', 'features.signature') }} IS NOT NULL
        ) AS n_timestamp,
        BOOL_OR(regexp_matches(
            {{ m4_render('features.value', 'typed.dtype') }},
            '\d{4}-\d{2}-\d{2}|T\d{2}:|\d{1,2}:\d{2}'
        )) FILTER (WHERE features.present_rank <= 50) AS looks_temporal
    FROM (
        SELECT
            *,
            CASE WHEN value IS NOT NULL
                THEN ROW_NUMBER() OVER (PARTITION BY owner, column_name, value IS NOT NULL ORDER BY row_order)
            END AS present_rank
        FROM features
    ) AS features
    INNER JOIN typed
        ON features.owner = typed.owner
        AND features.column_name = typed.column_name
    GROUP BY features.owner, features.column_name
)

SELECT
    typed.owner AS {{ owner }},
    typed.column_name,
    typed.n_rows,
    typed.n_present,
    typed.n_int,
    typed.n_float,
    typed.n_bool,
    typed.dtype,
    typed.first_signature,
    parsed.n_timestamp,
    COALESCE(parsed.looks_temporal, FALSE) AS looks_temporal,
    CASE
        WHEN typed.n_float = typed.n_rows OR typed.dtype = 'bool' THEN 'numeric'
        WHEN parsed.n_timestamp = typed.n_rows THEN 'timestamp'
        ELSE 'text'
    END AS key_kind,
    COALESCE({{ m4_has_time_zone('typed.first_signature') }}, FALSE) AS has_time_zone
FROM typed
INNER JOIN parsed
    ON typed.owner = parsed.owner
    AND typed.column_name = parsed.column_name
{% endmacro %}

{#- The normalised text of one key cell, given its column profile: the number,
    the UTC-free timestamp, or pandas' string of the cell; '<NA>' for missing. -#}
{% macro m4_key_text(value, profile) -%}
    COALESCE(
        CASE {{ profile }}.key_kind
            WHEN 'numeric' THEN CAST({{ m4_numeric(value, profile ~ '.dtype') }} AS VARCHAR)
            WHEN 'timestamp' THEN CAST({{ m4_parse_timestamp(value, m4_signature(value)) }} AS VARCHAR)
            ELSE {{ m4_render(value, profile ~ '.dtype') }}
        END,
        '<NA>'
    )
{%- endmacro %}
