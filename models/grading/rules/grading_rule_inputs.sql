{#- The inputs the rule macros are unit-tested on (no rows: each unit test gives its own). -#}
{{ config(enabled=var('m4_grading', false), materialized='view') }}
SELECT
    CAST(NULL AS INTEGER) AS case_id,
    CAST(NULL AS VARCHAR) AS agent_text,
    CAST(NULL AS VARCHAR) AS truth_text,
    CAST(NULL AS DOUBLE) AS truth_number,
    CAST(NULL AS DOUBLE) AS agent_number,
    CAST(NULL AS DOUBLE) AS tolerance,
    CAST(NULL AS VARCHAR) AS agent_dtype,
    CAST(NULL AS BIGINT) AS n_rows,
    CAST(NULL AS BIGINT) AS n_present,
    CAST(NULL AS BIGINT) AS n_int,
    CAST(NULL AS BIGINT) AS n_float,
    CAST(NULL AS BIGINT) AS n_bool
WHERE FALSE
