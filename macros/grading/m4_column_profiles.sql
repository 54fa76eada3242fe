{#-
  A long table of text cells (owner = run_id or reference_model, rows ordered
  by row_column) with the features of each cell's text, cheap enough to
  compute per cell: the pandas parse tests (DuckDB's double cast accepts what
  pandas' float parser accepts, except 'nan' and '_' digit separators), the
  number, and the timestamp shape (only for texts with '-' or ':') and value.
-#}
{% macro m4_cell_features(cells, owner, row_column) %}
WITH parsed AS (
    SELECT
        {{ owner }},
        {{ row_column }},
        column_name,
        value,
        TRY_CAST(value AS DOUBLE) AS as_double,
        CASE WHEN contains(value, '-') OR contains(value, ':') THEN {{ m4_signature('value') }} END AS signature
    FROM {{ cells }}
),

numbers AS (
    SELECT
        *,
        COALESCE(as_double IS NOT NULL AND NOT isnan(as_double) AND NOT contains(value, '_'), FALSE) AS is_float
    FROM parsed
)

SELECT
    {{ owner }},
    {{ row_column }},
    column_name,
    value,
    is_float,
    is_float AND NOT (
        contains(value, '.') OR contains(value, 'e') OR contains(value, 'E')
        OR contains(value, 'n') OR contains(value, 'N')
    ) AS is_int,
    COALESCE({{ m4_is_bool('value') }}, FALSE) AS is_bool,
    COALESCE(lower(value) = 'true', FALSE) AS is_true,
    as_double,
    signature,
    CASE
        WHEN {{ m4_is_timestamp_signature('signature') }}
            THEN {{ m4_parse_timestamp('value', 'signature') }}
    END AS timestamp_value
FROM numbers
{% endmacro %}

{#-
  One row per (owner, column) of a featured cell table: the pandas dtype the CSV
  reader would infer, the kind a key column normalises to (numeric where every
  value parses, else timestamp, else text), whether every value parses as a
  timestamp with the format of the column's first value, and (when
  with_temporal) M4Bench's "looks temporal" test on its first 50 present values.
-#}
{% macro m4_column_profiles(cells, owner, row_column, with_temporal=false) %}
WITH counts AS (
    SELECT
        {{ owner }} AS owner,
        column_name,
        COUNT(*) AS n_rows,
        COUNT(value) AS n_present,
        COUNT(*) FILTER (WHERE is_int) AS n_int,
        COUNT(*) FILTER (WHERE is_float) AS n_float,
        COUNT(*) FILTER (WHERE is_bool) AS n_bool
    FROM {{ cells }}
    GROUP BY {{ owner }}, column_name
),

shapes AS (
    SELECT
        {{ owner }} AS owner,
        column_name,
        signature,
        MIN({{ row_column }}) AS first_row,
        COUNT(*) FILTER (WHERE timestamp_value IS NOT NULL) AS n_timestamp
    FROM {{ cells }}
    WHERE value IS NOT NULL
    GROUP BY {{ owner }}, column_name, signature
),

first_shapes AS (
    SELECT
        owner,
        column_name,
        ARG_MIN(signature, first_row) AS first_signature,
        ARG_MIN(n_timestamp, first_row) AS n_timestamp
    FROM shapes
    GROUP BY owner, column_name
),

typed AS (
    SELECT
        counts.*,
        first_shapes.first_signature,
        COALESCE(first_shapes.n_timestamp, 0) AS n_timestamp,
        {{ m4_column_dtype('counts.n_rows', 'counts.n_present', 'counts.n_int', 'counts.n_float', 'counts.n_bool') }} AS dtype
    FROM counts
    LEFT JOIN first_shapes
        ON counts.owner = first_shapes.owner
        AND counts.column_name = first_shapes.column_name
)
{%- if with_temporal %},

first_fifty AS (
    SELECT
        cells.{{ owner }} AS owner,
        cells.column_name,
        BOOL_OR(regexp_matches(
            {{ m4_render('cells.', 'typed.dtype') }}, '\d{4}-\d{2}-\d{2}|T\d{2}:|\d{1,2}:\d{2}'
        )) AS looks_temporal
    FROM (
        SELECT
            *,
            ROW_NUMBER() OVER (PARTITION BY {{ owner }}, column_name ORDER BY {{ row_column }}) AS present_rank
        FROM {{ cells }}
        WHERE value IS NOT NULL
    ) AS cells
    INNER JOIN typed
        ON cells.{{ owner }} = typed.owner
        AND cells.column_name = typed.column_name
    WHERE cells.present_rank <= 50
    GROUP BY cells.{{ owner }}, cells.column_name
)
{%- endif %}

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
    typed.n_timestamp,
    {%- if with_temporal %}
    COALESCE(first_fifty.looks_temporal, FALSE) AS looks_temporal,
    {%- else %}
    FALSE AS looks_temporal,
    {%- endif %}
    CASE
        WHEN typed.n_float = typed.n_rows OR typed.dtype = 'bool' THEN 'numeric'
        WHEN typed.n_timestamp = typed.n_rows THEN 'timestamp'
        ELSE 'text'
    END AS key_kind,
    COALESCE({{ m4_has_time_zone('typed.first_signature') }}, FALSE) AS has_time_zone
FROM typed
{%- if with_temporal %}
LEFT JOIN first_fifty
    ON typed.owner = first_fifty.owner
    AND typed.column_name = first_fifty.column_name
{%- endif %}
{% endmacro %}

{#- The normalised text of one key cell (features prefix `cell`, profile alias
    `profile`): the number, the timestamp, or pandas' string; '<NA>' for missing. -#}
{% macro m4_key_text(cell, profile) -%}
    COALESCE(
        CASE {{ profile }}.key_kind
            WHEN 'numeric' THEN CAST({{ m4_numeric(cell, profile ~ '.dtype') }} AS VARCHAR)
            WHEN 'timestamp' THEN CAST({{ cell }}timestamp_value AS VARCHAR)
            ELSE {{ m4_render(cell, profile ~ '.dtype') }}
        END,
        '<NA>'
    )
{%- endmacro %}
