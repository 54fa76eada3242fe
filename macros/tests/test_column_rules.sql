{#- Every rule of a model in one query (issue 28): its columns' rules, its key and its cohort. The
    test fails with one row per broken rule (column_name, rule, failing_rows); dbt counts
    failing_rows, so a warning or failure says how many rows broke a rule. Declared once per model
    (and severity) instead of one dbt test per rule, which made a build run hundreds of tiny
    queries. The column rules are written as in a column's data_tests list:

      - column_rules:
          arguments:
            key: [stay_id]
            cohort: ref('stg_mimiciv_icu__icustays')
            columns:
              stay_id: [not_null]
              sofa: [not_null, {accepted_range: {min_value: 0, max_value: 24}}, {equals_sum: [a, b]}]
              status: [{accepted_values: {values: [a, b]}}]

    Column rules:
    - not_null: the value is present.
    - accepted_range: every non-NULL value lies within [min_value, max_value] (either bound may be
      omitted; inclusive: false makes both strict).
    - accepted_values: every non-NULL value is one of values (text quoted, numbers as they are).
    - equals_sum: a total equals the sum of the listed component columns, a missing (NULL) component
      counting as 0, on every row where the total is present (a row whose components are all NULL
      breaks it unless its total is 0).
    NULLs pass accepted_range, accepted_values and equals_sum, as in dbt's own tests: combine with
    not_null where a value is required.

    Model rules:
    - key: the listed columns identify a row; the rows whose combination of values occurs more than
      once break it (NULLs compare equal, as in GROUP BY). A model's primary-key test.
    - cohort (needs key): every row of the cohort relation has a row in the model, matched on the
      key's columns (named alike in both); the cohort rows without one break it. With key, every
      cohort row has exactly one. -#}
{% test column_rules(model, columns={}, key=[], cohort=none) %}

{{ config(fail_calc='COALESCE(SUM(failing_rows), 0)') }}

{%- if cohort is not none and not key -%}
    {{ exceptions.raise_compiler_error("column_rules: cohort needs key (the columns matching the cohort's rows)") }}
{%- endif -%}
{%- set checks = [] -%}
{%- for column_name, rules in columns.items() -%}
    {%- for rule in rules -%}
        {%- set name = rule if rule is string else (rule.keys() | list)[0] -%}
        {%- set args = {} if rule is string else (rule[name] or {}) -%}
        {%- if name == 'not_null' -%}
            {%- set broken = column_name ~ ' IS NULL' -%}
            {%- set label = 'not_null' -%}
        {%- elif name == 'accepted_range' -%}
            {%- set inclusive = args.get('inclusive', true) -%}
            {%- set bounds = [] -%}
            {%- if args.get('min_value') is not none -%}
                {%- do bounds.append(column_name ~ (' >= ' if inclusive else ' > ') ~ args['min_value']) -%}
            {%- endif -%}
            {%- if args.get('max_value') is not none -%}
                {%- do bounds.append(column_name ~ (' <= ' if inclusive else ' < ') ~ args['max_value']) -%}
            {%- endif -%}
            {%- if not bounds -%}
                {{ exceptions.raise_compiler_error("column_rules: accepted_range on " ~ column_name ~ " needs min_value or max_value") }}
            {%- endif -%}
            {%- set broken = column_name ~ ' IS NOT NULL AND NOT (' ~ (bounds | join(' AND ')) ~ ')' -%}
            {%- set label = 'accepted_range ' ~ ('[' if inclusive else '(') ~ args.get('min_value', '') ~ ', '
                ~ args.get('max_value', '') ~ (']' if inclusive else ')') -%}
        {%- elif name == 'accepted_values' -%}
            {%- set literals = [] -%}
            {%- for value in args['values'] -%}
                {%- do literals.append("'" ~ (value | replace("'", "''")) ~ "'" if value is string else value | string) -%}
            {%- endfor -%}
            {%- set broken = column_name ~ ' IS NOT NULL AND ' ~ column_name ~ ' NOT IN (' ~ (literals | join(', ')) ~ ')' -%}
            {%- set label = 'accepted_values ' ~ (literals | join(', ')) -%}
        {%- elif name == 'equals_sum' -%}
            {%- if args is string or not args -%}
                {{ exceptions.raise_compiler_error("column_rules: equals_sum on " ~ column_name ~ " needs a list of component columns") }}
            {%- endif -%}
            {%- set terms = [] -%}
            {%- for component in args -%}
                {%- do terms.append('COALESCE(' ~ component ~ ', 0)') -%}
            {%- endfor -%}
            {%- set broken = column_name ~ ' IS NOT NULL AND ' ~ column_name ~ ' <> (' ~ (terms | join(' + ')) ~ ')' -%}
            {%- set label = 'equals_sum ' ~ (args | join(' + ')) -%}
        {%- else -%}
            {{ exceptions.raise_compiler_error("column_rules: unknown rule " ~ name ~ " on " ~ column_name ~ " (not_null, accepted_range, accepted_values or equals_sum)") }}
        {%- endif -%}
        {%- do checks.append({'column': column_name, 'label': label, 'broken': broken}) -%}
    {%- endfor -%}
{%- endfor -%}
{%- if not checks and not key -%}
    {{ exceptions.raise_compiler_error("column_rules: nothing to check (give columns, key or both)") }}
{%- endif -%}
{%- set key_columns = key | join(', ') -%}
{%- set broken_rules = [] -%}

WITH
{%- if checks %}

rule_counts AS (

    SELECT
        {%- for check in checks %}
        SUM(CASE WHEN {{ check.broken }} THEN 1 ELSE 0 END) AS rule_{{ loop.index }}{{ ',' if not loop.last }}
        {%- endfor %}
    FROM {{ model }}

),
{%- for check in checks %}
{%- do broken_rules.append(column_rules_row(check.column, check.label, 'COALESCE(rule_' ~ loop.index ~ ', 0)', 'rule_counts')) %}
{%- endfor %}
{%- endif %}
{%- if key %}

key_counts AS (

    SELECT COUNT(*) AS n_rows
    FROM {{ model }}
    GROUP BY {{ key_columns }}

),
{%- do broken_rules.append(column_rules_row(key_columns, 'key', 'COALESCE(SUM(n_rows), 0)', 'key_counts WHERE n_rows > 1')) %}
{%- endif %}
{%- if cohort is not none %}

model_keys AS (

    SELECT DISTINCT {{ key_columns }}, 1 AS present
    FROM {{ model }}

),

cohort_gaps AS (

    SELECT COUNT(*) AS n_rows
    FROM {{ cohort }} AS cohort
    LEFT JOIN model_keys
        ON {% for column in key %}cohort.{{ column }} = model_keys.{{ column }}{{ ' AND ' if not loop.last }}{% endfor %}
    WHERE model_keys.present IS NULL

),
{%- do broken_rules.append(column_rules_row(key_columns, 'cohort ' ~ (cohort.identifier or cohort), 'n_rows', 'cohort_gaps')) %}
{%- endif %}

broken_rules AS (

    {{ broken_rules | join('\n    UNION ALL\n    ') }}

)

SELECT column_name, rule, failing_rows
FROM broken_rules
WHERE failing_rows > 0

{% endtest %}

{#- One row of column_rules' result: the rule broken on `column_name` and its count of failing rows
    (the SQL expression `failing_rows`, read from `source`); names and rule quoted as text. -#}
{% macro column_rules_row(column_name, rule, failing_rows, source) -%}
SELECT '{{ column_name | replace("'", "''") }}' AS column_name, '{{ rule | replace("'", "''") }}' AS rule, {{ failing_rows }} AS failing_rows FROM {{ source }}
{%- endmacro %}
