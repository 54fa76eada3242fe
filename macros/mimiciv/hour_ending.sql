{#-
  The hour of an ICU stay's hourly grid (int_mimiciv_demographics__icustay_hourly) that holds a
  time. Hour hr covers (endtime - 1 hour, endtime], and the grid's end times are whole hours, so
  the hour holding `time` is the one ending at `time` rounded up to the whole hour, and its number
  is the count of hours from the end of hour 0 (`hour_zero_end`) to then. This turns "rows charted
  in hour hr" from a range join of every hour with every row of the stay into an equality join on
  (stay_id, hr): the same rows, one comparison each.
-#}
{% macro hour_ending(time, hour_zero_end) -%}
    {{ dbt.datediff(
        hour_zero_end,
        "CASE WHEN " ~ m4_datetime_trunc('hour', time) ~ " = " ~ time ~ " THEN " ~ time
        ~ " ELSE " ~ dbt.dateadd('hour', 1, m4_datetime_trunc('hour', time)) ~ " END",
        'hour') }}
{%- endmacro %}
