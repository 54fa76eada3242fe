{#-
  urine_output_rate's cut-point rule, stated once (mimic-code measurement/urine_output_rate.sql
  as vendored by m4-infra).

  urine_covered_hours(minutes): the hours a window's measurements cover. Each measurement
  covers the minutes since the previous one (a double: microseconds / 60,000,000); the
  original adds them as its self-join hands them to SUM, from the latest measurement back to
  the earliest, and divides by 60. Added in that order here too: when the covered time is
  exactly the window's length but its minutes are not whole (times with seconds), the double
  lands a rounding error above or below the length, and which one depends on the order.
  `minutes` is the window's list of minutes, latest first.

  urine_rate_if_covered(volume, weight, covered_hours, window_hours): the rate in mL/kg/h,
  given only when covered_hours >= window_hours (so at exactly the window's length when the
  double sum reaches it), cast to DECIMAL(18, 3) (mimic-code rounds that to 4 places, which
  keeps 3); NULL otherwise.
-#}
{% macro urine_covered_hours(minutes) -%}
    {{ m4_sum_in_order(minutes) }} / 60.0
{%- endmacro %}

{% macro urine_rate_if_covered(volume, weight, covered_hours, window_hours) -%}
    CASE WHEN {{ covered_hours }} >= {{ window_hours }} THEN
        {{ dbt.safe_cast(volume ~ " / " ~ weight ~ " / " ~ covered_hours, "DECIMAL(18, 3)") }}
    END
{%- endmacro %}
