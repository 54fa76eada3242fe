{#-
  M4Bench's strict checks, defined once: each macro is the condition a row meets to pass the
  check, over the columns of fct_grading__results (a run) or, for the accuracy check, of
  fct_grading__column_scores (a scored column of a run); `row` prefixes the columns (e.g. 'results.').
  Everything else is derived from these macros: the generic tests (macros/tests/test_m4_*.sql,
  whose stored failures give result.json its strict_pass), fct_grading__results.strict_pass,
  the per-check rows of fct_grading__run_checks, and the Great Expectations suites
  (m4agent/grading/expectations.py validates those rows' measures).
  A run is readable when its file exists and reads as CSV; the checks after the first two are
  M4Bench's checks of a readable output.
-#}

{#- test_output_exists: the output file exists. -#}
{% macro m4_check_output_exists(row='') -%}
    {{ row }}file_exists
{%- endmacro %}

{#- test_output_is_valid_csv: it reads as CSV (M4Bench's reader) and has at least one row. -#}
{% macro m4_check_output_is_valid_csv(row='') -%}
    ({{ row }}read_error IS NULL AND {{ row }}agent_rows > 0)
{%- endmacro %}

{#- Whether the later checks apply: the file exists and reads as CSV. -#}
{% macro m4_check_readable(row='') -%}
    ({{ row }}file_exists AND {{ row }}read_error IS NULL)
{%- endmacro %}

{#- test_has_required_columns: every required column is in the header (exact names). -#}
{% macro m4_check_has_required_columns(row='') -%}
    (len({{ row }}missing_required_columns) = 0)
{%- endmacro %}

{#- test_row_coverage: the comparison ran and the share of truth keys supplied reaches the threshold. -#}
{% macro m4_check_row_coverage(row='') -%}
    ({{ row }}comparison_error IS NULL AND {{ row }}row_coverage >= {{ row }}row_coverage_threshold)
{%- endmacro %}

{#- test_score_accuracy[column]: the comparison ran and the column's match rate reaches the threshold. -#}
{% macro m4_check_score_accuracy(row='') -%}
    (NOT {{ row }}comparison_failed AND {{ row }}match_rate >= {{ row }}accuracy_threshold)
{%- endmacro %}

{#- The strict verdict of a run: every check passes (`all_columns_accurate`: the accuracy check
    holds for each of its scored columns). -#}
{% macro m4_strict_pass(row='', all_columns_accurate='TRUE') -%}
    ({{ m4_check_output_exists(row) }} AND {{ m4_check_output_is_valid_csv(row) }}
        AND {{ m4_check_has_required_columns(row) }} AND {{ m4_check_row_coverage(row) }}
        AND {{ all_columns_accurate }})
{%- endmacro %}
