{#- Every column rule of a model in one query (issue 28): one scan of the model counts, for each
    listed column, the rows breaking each of its rules, and the test fails with one row per broken
    rule (column_name, rule, failing_rows); dbt counts failing_rows, so a warning or failure says how
    many rows broke a rule. Declared once per model (and severity) instead of one dbt test per rule,
    which made a build run hundreds of tiny queries. The rules are dbt's, written as in a column's
    data_tests list:

      - column_rules:
          arguments:
            columns:
              stay_id: [not_null]
              sofa: [not_null, {accepted_range: {min_value: 0, max_value: 24}}]
              status: [{accepted_values: {values: [a, b]}}]

    not_null: the value is present. accepted_range: every non-NULL value lies within
    [min_value, max_value] (either bound may be omitted; inclusive: false makes both strict).
    accepted_values: every non-NULL value is one of values (text quoted, numbers as they are).
    NULLs pass the last two, as in dbt's own tests: combine with not_null where a value is
    required. -#}
{% test column_rules(model, columns) %}

{{ config(fail_calc='COALESCE(SUM(failing_rows), 0)') }}

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
        {%- else -%}
            {{ exceptions.raise_compiler_error("column_rules: unknown rule " ~ name ~ " on " ~ column_name ~ " (not_null, accepted_range or accepted_values)") }}
        {%- endif -%}
        {%- do checks.append({'column': column_name, 'label': label, 'broken': broken}) -%}
    {%- endfor -%}
{%- endfor %}

WITH rule_counts AS (

    SELECT
        {%- for check in checks %}
        SUM(CASE WHEN {{ check.broken }} THEN 1 ELSE 0 END) AS rule_{{ loop.index }}{{ ',' if not loop.last }}
        {%- endfor %}
    FROM {{ model }}

),

broken_rules AS (

    {%- for check in checks %}
    SELECT
        '{{ check.column }}' AS column_name,
        '{{ check.label | replace("'", "''") }}' AS rule,
        COALESCE(rule_{{ loop.index }}, 0) AS failing_rows
    FROM rule_counts
    {{ 'UNION ALL' if not loop.last }}
    {%- endfor %}

)

SELECT column_name, rule, failing_rows
FROM broken_rules
WHERE failing_rows > 0

{% endtest %}
