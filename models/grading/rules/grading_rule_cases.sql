{#- Each rule macro of macros/grading/rules applied to the cases of grading_rule_inputs: the
    model the rules' unit tests run on (_grading_rules.yml). Grading calls leave it out. -#}
{{ config(enabled=var('m4_grading', false), materialized='view') }}
SELECT
    case_id,
    CAST({{ m4_cell_kind('agent_text', m4_double('agent_text')) }} AS VARCHAR) AS agent_kind,
    {{ m4_column_dtype('n_rows', 'n_present', 'n_int', 'n_float', 'n_bool') }} AS column_dtype,
    {{ m4_values_match('truth_number', 'agent_number', 'tolerance') }} AS values_match,
    {{ m4_signature('agent_text', exact_case=true) }} AS agent_signature,
    {{ m4_timestamp('agent_text') }} AS agent_timestamp,
    {{ m4_key_number('agent_text', "'numeric'", 'agent_dtype') }} AS key_number,
    {{ m4_key_text('agent_text', "'text'", 'agent_dtype') }} AS key_text,
    {{ m4_texts_match('truth_text', 'agent_text', 'agent_dtype') }} AS texts_match
FROM {{ ref('grading_rule_inputs') }}
