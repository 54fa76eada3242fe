{#-
  The references of the batch as M4Bench's ground-truth CSVs hold them: every
  value rendered as text the way DuckDB -> pandas -> to_csv writes it, rows
  numbered in the CSV's order (sorted by the key columns), one row per
  (reference, row, column). Which references and columns: var
  m4_grading_references = {model: {keys: [...], columns: [...]}}, set by
  `m4agent grade` from the tasks of the batch.
-#}
{{ config(enabled=var('m4_grading', false)) }}
{%- set references = var('m4_grading_references', {}) %}
{%- if references %}
WITH
{%- for model, spec in references.items() %}
{%- set relation = ref(model) %}
{%- set types = {} %}
{%- if execute %}
{%- for column in adapter.get_columns_in_relation(relation) %}
{%- do types.update({column.name: column.dtype}) %}
{%- endfor %}
{%- endif %}
{%- set present = [] %}
{%- for column in spec['columns'] %}
{%- if not execute or column in types %}{% do present.append(column) %}{% endif %}
{%- endfor %}
rendered_{{ loop.index }} AS (
    SELECT
        ROW_NUMBER() OVER (
            ORDER BY {% for key in spec['keys'] %}{{ adapter.quote(key) }} NULLS LAST{% if not loop.last %}, {% endif %}{% endfor %}
        ) AS truth_row
        {%- for column in present %},
        {{ m4_render_reference_column(column, types.get(column, 'VARCHAR')) }} AS {{ adapter.quote(column) }}
        {%- endfor %}
    FROM {{ relation }}
),

cells_{{ loop.index }} AS (
    SELECT '{{ model }}' AS reference_model, truth_row, column_name, value
    FROM rendered_{{ loop.index }}
    UNPIVOT INCLUDE NULLS (
        value FOR column_name IN ({% for column in present %}{{ adapter.quote(column) }}{% if not loop.last %}, {% endif %}{% endfor %})
    )
){% if not loop.last %},{% endif %}
{%- endfor %}

{% for model in references %}
SELECT reference_model, truth_row, column_name, value FROM cells_{{ loop.index }}
{% if not loop.last %}UNION ALL{% endif %}
{%- endfor %}
{%- else %}
SELECT
    CAST(NULL AS VARCHAR) AS reference_model,
    CAST(NULL AS BIGINT) AS truth_row,
    CAST(NULL AS VARCHAR) AS column_name,
    CAST(NULL AS VARCHAR) AS value
WHERE FALSE
{%- endif %}
