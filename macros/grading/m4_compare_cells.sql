{#-
  How an agent cell is read beside its truth cell, and compared, in the models that compare
  cell by cell (int_grading__cell_counts counts the cells, fct_grading__cell_verdicts keeps a
  verdict per cell). An agent cell carrying the truth's text reads as the truth cell does: its
  number and kind are the truth's (int_grading__truth_values), so only the other cells are cast.
-#}

{#- Whether the agent's text `agent` is the truth's rendered text `truth_render`. -#}
{% macro m4_same_text(agent, truth_render) -%}
    COALESCE({{ agent }} = {{ truth_render }}, FALSE)
{%- endmacro %}

{#- The agent cell's double (m4_double), the truth's `truth_number` where `same_text` holds. -#}
{% macro m4_read_number(agent, same_text, truth_number) -%}
    CASE WHEN {{ same_text }} THEN {{ truth_number }} ELSE {{ m4_double(agent) }} END
{%- endmacro %}

{#- The agent cell's kind (m4_cell_kind of it and its double `number`), the truth's `truth_kind`
    where `same_text` holds. -#}
{% macro m4_read_kind(agent, same_text, truth_kind, number) -%}
    CASE WHEN {{ same_text }} THEN {{ truth_kind }} ELSE {{ m4_cell_kind(agent, number) }} END
{%- endmacro %}

{#- Whether two timestamps match within `tolerance_seconds`: m4_values_match of the two in
    microseconds since the epoch, the tolerance in microseconds too. -#}
{% macro m4_timestamps_match(truth_timestamp, agent_timestamp, tolerance_seconds) -%}
    {{ m4_values_match('CAST(epoch_us(' ~ truth_timestamp ~ ') AS HUGEINT)', 'epoch_us(' ~ agent_timestamp ~ ')',
                       tolerance_seconds ~ ' * 1000000') }}
{%- endmacro %}
