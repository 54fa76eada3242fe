{#- The shape of a timestamp text: digit runs collapsed to 'd'. pandas infers one
    format from a column's first value and parses every other value with it.
    NULL for a text with none of '-', ':', '/', '.' and ' ' (it cannot be a
    timestamp). The usual shapes are recognised by a round trip through the cast
    (cheap, and exact: a text of 19 characters, or 10 for a date, equal to the
    cast's text 'YYYY-MM-DD HH:MM:SS' has that shape; a fraction, a year beyond
    9999 or BC, and '-infinity' make other lengths); any
    other text goes through regular expressions, which mark what decides the
    format: English month names ('B' for a full name, 'b' for an abbreviation,
    'M' for May, which is both), a final AM or PM ('p'), and a four-digit year
    ('Y') in numeric dates other than ISO 8601 (month/day/year and day/month/year
    dates with '/', '.' or '-', year/month/day dates with '/' or '.'; see
    m4_timestamp_formats). pandas infers a format only from a first value whose
    month name is cased as strftime writes it, then reads any case: `exact_case`
    is for first values. m4_signature_from takes the text's timestamp cast
    (`cast`, computed once: see m4_timestamp_cast). -#}
{% macro m4_signature(value, exact_case=false) -%}
    {{ m4_signature_from(value, 'TRY_CAST(' ~ value ~ ' AS TIMESTAMP)', exact_case) }}
{%- endmacro %}

{% macro m4_signature_from(value, cast, exact_case=false) -%}
    {%- set flags = "'g'" if exact_case else "'gi'" -%}
    CASE
        WHEN NOT (contains({{ value }}, '-') OR contains({{ value }}, ':') OR contains({{ value }}, '/')
                  OR contains({{ value }}, '.') OR contains({{ value }}, ' ')) THEN NULL
        WHEN length({{ value }}) = 19 AND CAST({{ cast }} AS VARCHAR) = {{ value }} THEN 'd-d-d d:d:d'
        WHEN length({{ value }}) = 19 AND CAST({{ cast }} AS VARCHAR) = replace({{ value }}, 'T', ' ') THEN 'd-d-dTd:d:d'
        WHEN length({{ value }}) = 10 AND CAST(TRY_CAST({{ value }} AS DATE) AS VARCHAR) = {{ value }} THEN 'd-d-d'
        ELSE regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace({{ value }},
            '\b(January|February|March|April|June|July|August|September|October|November|December)\b', 'B', {{ flags }}),
            '\bMay\b', 'M', {{ flags }}), '\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b', 'b', {{ flags }}),
            ' (AM|PM)$', ' p', {{ flags }}),
            '^(?:([0-9]{1,2}[/.-][0-9]{1,2}[/.-])[0-9]{4}( |$)|[0-9]{4}([/.][0-9]))', '\1Y\2\3'), '[0-9]+', 'd', 'g')
    END
{%- endmacro %}

{#- The shapes m4_signature_from recognises by the round trip through the cast:
    naive, and parsed by a plain cast. -#}
{% macro m4_usual_signatures() -%}
    ('d-d-d d:d:d', 'd-d-dTd:d:d', 'd-d-d')
{%- endmacro %}

{#- The formats pandas infers from a first value other than ISO 8601, by the
    shape of its date (m4_signature_from, without the time and with every month
    name read as 'B'), as [date shape, strptime formats] pairs: month/day/year
    dates with '/', '.' or '-' (day/month/year when `day_first`: the first value's
    first number is above 12, m4_day_first), year/month/day dates with '/' or
    '.', and dates with an English month name, full or abbreviated ('May 29 2117',
    'May 29, 2117', '29 May 2117', '29-May-2117'); each date without a time, with
    hours and minutes, or with hours, minutes and seconds, on a 24-hour clock or
    a 12-hour one with AM or PM (which ISO 8601 dates take too), the seconds
    with or without a fraction ('17:16:19.000'). pandas infers
    the 12-hour format only from some first values ('01:50 AM', '12:50 PM') and
    parses each value on its own otherwise, which for such a column reads the
    same times. A cell is parsed with the formats of its date shape: the one its
    text matches is the one pandas infers from it (the columns' shape checks,
    m4_same_shape, hold every cell to the first value's). -#}
{% macro m4_timestamp_formats(day_first=false) -%}
    {%- set dates = [] -%}
    {%- for sep in ['/', '.', '-'] -%}
        {%- set order = ['%d', '%m'] if day_first else ['%m', '%d'] -%}
        {%- do dates.append(['d' ~ sep ~ 'd' ~ sep ~ 'Y', [order | join(sep) ~ sep ~ '%Y']]) -%}
    {%- endfor -%}
    {%- if not day_first -%}
        {%- for sep in ['/', '.'] -%}
            {%- do dates.append(['Y' ~ sep ~ 'd' ~ sep ~ 'd', ['%Y' ~ sep ~ '%m' ~ sep ~ '%d']]) -%}
        {%- endfor -%}
        {%- for shape, format in [['B d d', 'M %d %Y'], ['B d, d', 'M %d, %Y'], ['d B d', '%d M %Y'], ['d-B-d', '%d-M-%Y']] -%}
            {%- do dates.append([shape, [format | replace('M', '%B'), format | replace('M', '%b')]]) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set times = ['', ' %H:%M', ' %H:%M:%S', ' %H:%M:%S.%f', ' %I:%M %p', ' %I:%M:%S %p', ' %I:%M:%S.%f %p'] -%}
    {%- set formats = [] -%}
    {%- for shape, date_formats in dates -%}
        {%- set with_times = [] -%}
        {%- for time_format in times -%}
            {%- for date_format in date_formats %}{% do with_times.append(date_format ~ time_format) %}{% endfor -%}
        {%- endfor -%}
        {%- do formats.append([shape, with_times]) -%}
    {%- endfor -%}
    {%- if not day_first -%}
        {#- ISO 8601 dates with a 12-hour time (ISO texts themselves are cast) -#}
        {%- do formats.append(['d-d-d', ['%Y-%m-%d %I:%M %p', '%Y-%m-%d %I:%M:%S %p']]) -%}
    {%- endif -%}
    {{ return(formats) }}
{%- endmacro %}

{#- Whether pandas reads a column whose first value is `value` (of shape
    `signature`) day first: a day/month/year date whose first number cannot be a month. -#}
{% macro m4_day_first(value, signature) -%}
    COALESCE({{ signature }} LIKE 'd_d_Y%' AND TRY_CAST(regexp_extract({{ value }}, '^[0-9]+') AS INTEGER) > 12, FALSE)
{%- endmacro %}

{#- A text's timestamp in the format of its shape (m4_timestamp_formats; a
    day/month/year date when `day_first`); NULL for other shapes or when it does not parse.
    A time zone after the time ('05/29/2117 01:50:00 +0000', '... UTC'; pandas then
    infers '%z' or '%Z' and makes the column time-zone aware, m4_has_time_zone) is
    read as such (m4_strptime_zoned). -#}
{% macro m4_parse_formatted(value, signature, day_first=false) -%}
    CASE regexp_replace(translate({{ signature }}, 'bM', 'BB'), ' d:d(:d(\.d)?)?( p|{{ m4_time_zone_pattern() }})?$', '')
        {%- for shape, formats in m4_timestamp_formats(day_first) %}
        WHEN '{{ shape }}' THEN {{ m4_strptime_zoned(value, formats) }}
        {%- endfor %}
    END
{%- endmacro %}

{#- try_strptime with `formats`, for a text that may end in a time zone after its
    time (an offset, also after a space, Z, UTC or GMT): the text without it is
    parsed, and the zone applied (UTC, as for ISO texts: m4_utc_timestamp). -#}
{% macro m4_strptime_zoned(value, formats) -%}
    {#- the time's last digits (group 1) and the zone (group 3) -#}
    {%- set zoned -%} '(:[0-9]+(\.[0-9]+)?){{ m4_time_zone_pattern() | replace('d', '[0-9]+') }}$' {%- endset -%}
    {%- set format_list = "['" ~ formats | join("', '") ~ "']" -%}
    {%- set naive -%} try_strptime(regexp_replace({{ value }}, {{ zoned }}, '\1'), {{ format_list }}) {%- endset -%}
    CASE
        WHEN regexp_matches({{ value }}, {{ zoned }}) THEN {{ m4_utc_timestamp(
            "strftime(" ~ naive ~ ", '%Y-%m-%dT%H:%M:%S.%f') || regexp_extract(" ~ value ~ ", " ~ zoned ~ ", 3)") }}
        ELSE try_strptime({{ value }}, {{ format_list }})
    END
{%- endmacro %}

{#- Every format of m4_timestamp_formats (day first: the day/month/year ones), as a
    SQL list for try_strptime, which returns the first that parses. For the values
    of a column whose cells all have its first value's shape, that is the format
    pandas infers: the formats' shapes do not overlap. -#}
{% macro m4_format_list(day_first=false) -%}
    {%- set formats = [] -%}
    {%- for shape, shape_formats in m4_timestamp_formats(day_first) %}{% do formats.extend(shape_formats) %}{% endfor -%}
    ['{{ formats | join("', '") }}']
{%- endmacro %}

{#- A cell's timestamp read day first, for day/month/year shapes only (NULL otherwise):
    used where the column's first value is read day first (m4_day_first). -#}
{% macro m4_day_first_timestamp(value, signature) -%}
    CASE WHEN {{ signature }} LIKE 'd_d_Y%' THEN {{ m4_parse_formatted(value, signature, day_first=true) }} END
{%- endmacro %}

{#- The aggregates m4_same_shape compares, over the cells' shapes (`signature`, a
    column; `filter`, an optional condition on the rows counted): the min and max
    shape with May read as a full name (min_signature_<suffix>, max_signature_<suffix>)
    and as an abbreviation (min_signature_b_<suffix>, max_signature_b_<suffix>). -#}
{% macro m4_shape_bounds(signature, suffix, filter=none) -%}
    {%- set where = ' FILTER (WHERE ' ~ filter ~ ')' if filter else '' -%}
    MIN(replace({{ signature }}, 'M', 'B')){{ where }} AS min_signature_{{ suffix }},
        MAX(replace({{ signature }}, 'M', 'B')){{ where }} AS max_signature_{{ suffix }},
        MIN(replace({{ signature }}, 'M', 'b')){{ where }} AS min_signature_b_{{ suffix }},
        MAX(replace({{ signature }}, 'M', 'b')){{ where }} AS max_signature_b_{{ suffix }}
{%- endmacro %}

{#- Whether every cell (the min and max of their shapes, m4_shape_bounds, with May
    read as a full name, <prefix>min_signature, and as an abbreviation,
    <prefix>min_signature_b) has the shape of the column's first value (`first_signature`, exact case):
    pandas parses each cell in the first value's format, where May is a full name
    ('%B') or an abbreviation ('%b') as the first value's month is. A first value
    whose month name is not cased as strftime writes it (`first_signature_any`,
    its shape in any case, has a month name the exact one lacks) gives pandas no
    format: it then parses each value on its own, so no shape is required (the
    cells must still parse). -#}
{% macro m4_same_shape(first_signature, prefix='', first_signature_any=none) -%}
    CASE
        {%- if first_signature_any %}
        WHEN {{ first_signature_any }} <> {{ first_signature }}
            AND regexp_matches({{ first_signature_any }}, '\b[BbM]\b') THEN TRUE
        {%- endif %}
        WHEN regexp_matches({{ first_signature }}, '\bb\b')
            THEN {{ prefix }}min_signature_b = {{ first_signature }} AND {{ prefix }}max_signature_b = {{ first_signature }}
        ELSE {{ prefix }}min_signature = replace({{ first_signature }}, 'M', 'B')
            AND {{ prefix }}max_signature = replace({{ first_signature }}, 'M', 'B')
    END
{%- endmacro %}

{#- A text's naive timestamp cast, only for texts that can be timestamps. -#}
{% macro m4_timestamp_cast(value) -%}
    CASE WHEN contains({{ value }}, '-') OR contains({{ value }}, ':') THEN TRY_CAST({{ value }} AS TIMESTAMP) END
{%- endmacro %}

{#- The time zones pandas reads after a time, as a regular expression over a
    timestamp shape (digit runs as 'd', m4_signature): an offset (also after a
    space, '... +0000'), Z, or UTC or GMT after a space. -#}
{% macro m4_time_zone_pattern() -%}
    (Z| ?[+-]d(:d)?| UTC| GMT)
{%- endmacro %}

{#- Whether a timestamp text carries a time zone (m4_time_zone_pattern after its
    time: pandas makes it tz-aware). -#}
{% macro m4_has_time_zone(signature) -%}
    CASE
        WHEN {{ signature }} IN {{ m4_usual_signatures() }} THEN FALSE
        ELSE regexp_matches({{ signature }}, 'd:d(:d)?(\.d)?{{ m4_time_zone_pattern() }}$')
    END
{%- endmacro %}

{#- A time-zone-aware ISO text as a UTC timestamp. DuckDB's cast reads an offset
    only right after the time: '... +0000' loses its space first (a naive cast
    would drop such an offset silently). -#}
{% macro m4_utc_timestamp(value) -%}
    timezone('UTC', TRY_CAST(replace(replace({{ value }}, ' +', '+'), ' -', '-') AS TIMESTAMPTZ))
{%- endmacro %}

{#- A cell's timestamp, parsed with its shape (`signature`, see m4_signature); NULL
    when it has none pandas parses. ISO 8601 texts are cast (UTC for tz-aware
    values: m4_has_time_zone, m4_utc_timestamp), other texts parsed with the formats of m4_timestamp_formats. With the
    cell's naive cast (`cast`), the usual shapes take it instead of casting again. -#}
{% macro m4_timestamp_from(value, signature, cast=none) -%}
    CASE
        {%- if cast %}
        WHEN {{ signature }} IN {{ m4_usual_signatures() }} THEN {{ cast }}
        {%- endif %}
        WHEN regexp_full_match({{ signature }}, 'd-d-d([ T]d:d(:d(\.d)?)?{{ m4_time_zone_pattern() }}?)?') THEN CASE
            WHEN {{ m4_has_time_zone(signature) }} THEN {{ m4_utc_timestamp(value) }}
            ELSE TRY_CAST({{ value }} AS TIMESTAMP)
        END
        ELSE {{ m4_parse_formatted(value, signature) }}
    END
{%- endmacro %}

{#- The same, computing the shape. -#}
{% macro m4_timestamp(value) -%}
    {{ m4_timestamp_from(value, m4_signature(value)) }}
{%- endmacro %}
