{#- The normalised key of a row, as typed parts per key slot (key_number_<slot>,
    key_timestamp_<slot>, key_text_<slot>): `cells` prefixes the text columns
    (column_<slot>), `columns` prefixes the key kind, dtype and time zone of each
    slot (key_kind_<slot>, <dtype_prefix><slot>, key_time_zone_<slot>). -#}
{% macro m4_key_parts(key_width, cells, columns, dtype_prefix) %}
    {%- for slot in range(1, key_width + 1) %}
    {%- set value = cells ~ 'column_' ~ slot %}
    {%- set kind = columns ~ 'key_kind_' ~ slot %}
    {%- set dtype = columns ~ dtype_prefix ~ slot %}
    {{ m4_key_number(value, kind, dtype) }} AS key_number_{{ slot }},
    {{ m4_key_timestamp(value, kind, columns ~ 'key_time_zone_' ~ slot) }} AS key_timestamp_{{ slot }},
    {{ m4_key_text(value, kind, dtype) }} AS key_text_{{ slot }}{% if not loop.last %},{% endif %}
    {%- endfor %}
{% endmacro %}

{#- A key cell (text `value`, its column's key kind and dtype) as typed parts
    that compare the way pandas merges normalised keys: the number (pd.to_numeric;
    a numeric key column is all numbers, or all booleans), the timestamp, or
    pandas' string ('<NA>' for a missing text key). The *_of macros give one part
    for a kind known in advance. -#}
{% macro m4_key_number(value, kind, dtype) -%}
    CASE WHEN {{ kind }} = 'numeric' THEN {{ m4_numeric(value, dtype) }} END
{%- endmacro %}

{#- (A timestamp key column's values all have the shape of its first value, so its
    time zone, has_time_zone, is the column's: a SQL expression, or true / false
    when known while compiling.) -#}
{% macro m4_key_timestamp(value, kind, has_time_zone) -%}
    CASE WHEN {{ kind }} = 'timestamp' THEN {{ m4_key_timestamp_of(value, has_time_zone) }} END
{%- endmacro %}

{% macro m4_key_timestamp_of(value, has_time_zone, day_first=none) -%}
    {%- if has_time_zone is sameas true -%}
        {{ m4_utc_timestamp(value) }}
    {%- elif has_time_zone is sameas false -%}
        {{ m4_key_naive_timestamp(value, day_first) }}
    {%- else -%}
        CASE
            WHEN {{ has_time_zone }} THEN {{ m4_utc_timestamp(value) }}
            ELSE {{ m4_key_naive_timestamp(value, day_first) }}
        END
    {%- endif -%}
{%- endmacro %}

{#- A naive key timestamp: ISO texts by a cast, other dates with the formats of
    m4_timestamp_formats (a timestamp key column's values all have the shape of
    its first value, m4_profile_rows), day first where `day_first` (the column's
    m4_day_first, a SQL expression) holds. DuckDB's cast reads '01:50 PM' as
    01:50 (it ignores a trailing word), so 12-hour texts skip it. -#}
{% macro m4_key_naive_timestamp(value, day_first=none) -%}
    {%- set cast = 'CASE WHEN NOT (' ~ value ~ " LIKE '%M' OR " ~ value ~ " LIKE '%m') THEN TRY_CAST(" ~ value ~ ' AS TIMESTAMP) END' -%}
    {%- set read = 'COALESCE(' ~ cast ~ ', try_strptime(' ~ value ~ ', ' ~ m4_format_list() ~ '))' -%}
    {%- if day_first -%}
        CASE WHEN {{ day_first }} THEN try_strptime({{ value }}, {{ m4_format_list(day_first=true) }}) ELSE {{ read }} END
    {%- else -%}
        {{ read }}
    {%- endif %}
{%- endmacro %}

{% macro m4_key_text(value, kind, dtype) -%}
    CASE WHEN {{ kind }} = 'text' THEN {{ m4_key_text_of(value, dtype) }} END
{%- endmacro %}

{% macro m4_key_text_of(value, dtype) -%}
    COALESCE({{ m4_render(value, dtype) }}, '<NA>')
{%- endmacro %}
