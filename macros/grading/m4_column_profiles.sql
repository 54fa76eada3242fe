{#-
  One row per distinct (owner, column, value) of a long table of text cells
  (owner = run_id or reference_model, rows ordered by row_column): how many
  cells hold it, its first row, and its features (m4_value_features). Every
  per-value test runs once per distinct value, not once per cell.
-#}
{% macro m4_distinct_values(cells, owner, row_column) %}
WITH distinct_values AS (
    SELECT
        {{ owner }} AS owner,
        column_name,
        value,
        COUNT(*) AS n_cells,
        MIN({{ row_column }}) AS first_row
    FROM {{ cells }}
    GROUP BY {{ owner }}, column_name, value
)

SELECT
    owner AS {{ owner }},
    column_name,
    value,
    n_cells,
    first_row,
    {{ m4_value_features('value') }}
FROM distinct_values
{% endmacro %}

{#-
  One row per (owner, column) from its distinct values: the pandas dtype the CSV
  reader would infer, the kind a key column normalises to (numeric where every
  value parses, else timestamp, else text), whether every value parses as a
  timestamp with the format of the column's first value, and (when `cells` is
  given) M4Bench's "looks temporal" test on the first 50 present values.
-#}
{% macro m4_column_profiles(values, owner, cells=none, row_column=none) %}
WITH counts AS (
    SELECT
        {{ owner }} AS owner,
        column_name,
        SUM(n_cells) AS n_rows,
        COALESCE(SUM(n_cells) FILTER (WHERE value IS NOT NULL), 0) AS n_present,
        COALESCE(SUM(n_cells) FILTER (WHERE is_int), 0) AS n_int,
        COALESCE(SUM(n_cells) FILTER (WHERE is_float), 0) AS n_float,
        COALESCE(SUM(n_cells) FILTER (WHERE is_bool), 0) AS n_bool,
        ARG_MIN(signature, first_row) FILTER (WHERE value IS NOT NULL) AS first_signature
    FROM {{ values }}
    GROUP BY {{ owner }}, column_name
),

typed AS (
    SELECT
        counts.*,
        {{ m4_column_dtype('n_rows', 'n_present', 'n_int', 'n_float', 'n_bool') }} AS dtype
    FROM counts
),
{%- if cells is not none %}

first_fifty AS (
    SELECT owner, column_name, MAX(row_order) AS last_row
    FROM (
        SELECT
            {{ owner }} AS owner,
            column_name,
            {{ row_column }} AS row_order,
            ROW_NUMBER() OVER (PARTITION BY {{ owner }}, column_name ORDER BY {{ row_column }}) AS present_rank
        FROM {{ cells }}
        WHERE value IS NOT NULL
    ) AS present_cells
    WHERE present_rank <= 50
    GROUP BY owner, column_name
),
{%- endif %}

parsed AS (
    SELECT
        typed.owner,
        typed.column_name,
        COALESCE(SUM(v.n_cells) FILTER (
            WHERE v.value IS NOT NULL
                AND v.signature = typed.first_signature
                AND v.timestamp_value IS NOT NULL
        ), 0) AS n_timestamp,
        {%- if cells is not none %}
        COALESCE(BOOL_OR(regexp_matches(
            {{ m4_render('v.', 'typed.dtype') }},
            '\d{4}-\d{2}-\d{2}|T\d{2}:|\d{1,2}:\d{2}'
        )) FILTER (WHERE v.value IS NOT NULL AND v.first_row <= first_fifty.last_row), FALSE) AS looks_temporal
        {%- else %}
        FALSE AS looks_temporal
        {%- endif %}
    FROM typed
    INNER JOIN {{ values }} AS v
        ON typed.owner = v.{{ owner }}
        AND typed.column_name = v.column_name
    {%- if cells is not none %}
    LEFT JOIN first_fifty
        ON typed.owner = first_fifty.owner
        AND typed.column_name = first_fifty.column_name
    {%- endif %}
    GROUP BY typed.owner, typed.column_name
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
    parsed.looks_temporal,
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

{#- The normalised text of one key value (features prefix `cell`, profile alias
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
