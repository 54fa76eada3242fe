{#-
  Rule: whether an agent's value matches the truth's under the column's tolerance.
  The one statement of M4Bench's tolerance rule: the absolute difference is at
  most the tolerance. Numbers are compared as they are; booleans as 1 and 0;
  timestamps as microseconds since the epoch, their tolerance (in seconds) in
  microseconds too. A missing or not-a-number side never matches (NULL and NaN
  make the comparison false; so do infinities, whose difference is NaN).
-#}
{% macro m4_values_match(truth, agent, tolerance) -%}
    COALESCE(abs({{ truth }} - {{ agent }}) <= {{ tolerance }}, FALSE)
{%- endmacro %}
