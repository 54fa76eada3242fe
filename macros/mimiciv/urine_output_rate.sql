{#-
  The urine output rate concept's SQL (mimic-code measurement/urine_output_rate.sql as vendored by
  m4-infra), shared by the concept (int_mimiciv_measurement__urine_output_rate) and the
  urine-output-rate reference, whose variants read its windows otherwise (docs/explain.md).

  urine_output: the relation of urine output per stay and charttime (stay_id, charttime,
  urineoutput). reach_short_hours: how much shorter than its name a window reaches back: 1 in
  mimic-code (the 6, 12 and 24 hour windows take chartings up to 5, 11 and 23 hours back, a
  charting covering the hour before it), 0 for windows reaching back their full length.
-#}
{% macro urine_output_rate(urine_output, reach_short_hours=1) %}
WITH heart_rate_bounds AS (

    -- the stay's first and last charted heart rate within a month of the ICU stay
    SELECT
        ie.stay_id,
        MIN(ce.charttime) AS intime_hr,
        MAX(ce.charttime) AS outtime_hr
    FROM {{ ref('stg_mimiciv_icu__icustays') }} AS ie
    INNER JOIN {{ ref('int_mimiciv_events__chartevents_used') }} AS ce
        ON
            ie.stay_id = ce.stay_id
            AND ce.itemid = 220045  -- Heart Rate
            AND ce.charttime > {{ dbt.dateadd('month', -1, 'ie.intime') }}
            AND ce.charttime < {{ dbt.dateadd('month', 1, 'ie.outtime') }}
    GROUP BY ie.stay_id

),

urine_intervals AS (

    -- minutes covered by each measurement: since the previous one, or since the first
    -- heart rate for the stay's first measurement; and its time on the stay's clock
    -- (microseconds since that heart rate), which orders the windows below
    SELECT
        hr.stay_id,
        uo.charttime,
        uo.urineoutput,
        {{ dbt.datediff('hr.intime_hr', 'uo.charttime', 'microsecond') }} AS microseconds_since_hr,
        {{ dbt.datediff(
            "COALESCE(LAG(uo.charttime) OVER (PARTITION BY hr.stay_id ORDER BY uo.charttime NULLS FIRST), hr.intime_hr)",
            "uo.charttime", "microsecond") }} / 60000000.0 AS tm_since_last_uo
    FROM heart_rate_bounds AS hr
    INNER JOIN {{ urine_output }} AS uo
        ON hr.stay_id = uo.stay_id

),

urine_windows AS (

    -- For each measurement, the measurements of the same stay up to 23 hours earlier (5 and
    -- 11 hours for the 6- and 12-hour windows: a measurement covers the hour before it;
    -- reach_short_hours), bounds included, latest first. mimic-code joins the measurements to
    -- themselves and groups by stay and charttime; urine_output has one row per stay and
    -- charttime (its tested key), so each group is this row and its window, and uo
    -- (mimic-code: the sum of the DISTINCT volumes charted then) is this row's volume. The
    -- minutes each measurement covers are kept as a list in window order, for the covered
    -- hours below.
    SELECT
        stay_id,
        charttime,
        urineoutput AS uo,
        {%- for hours in [6, 12, 24] %}
        SUM(urineoutput) OVER last_{{ hours }}_hours AS urineoutput_{{ hours }}hr,
        {{ m4_window_list('tm_since_last_uo') }} OVER last_{{ hours }}_hours AS minutes_{{ hours }}hr{{ ',' if not loop.last }}
        {%- endfor %}
    FROM urine_intervals
    WINDOW
        {%- for hours in [6, 12, 24] %}
        last_{{ hours }}_hours AS (
            PARTITION BY stay_id ORDER BY microseconds_since_hr DESC
            RANGE BETWEEN CURRENT ROW AND {{ (hours - reach_short_hours) * 3600 * 1000000 }} FOLLOWING
        ){{ ',' if not loop.last }}
        {%- endfor %}

),

covered_hours AS (

    SELECT
        stay_id,
        charttime,
        uo
        {%- for hours in [6, 12, 24] %},
        urineoutput_{{ hours }}hr,
        {{ urine_covered_hours('minutes_' ~ hours ~ 'hr') }} AS uo_tm_{{ hours }}hr
        {%- endfor %}
    FROM urine_windows

),

weights AS (

    SELECT
        stay_id,
        starttime,
        endtime,
        weight
    FROM {{ ref('int_mimiciv_demographics__weight_durations') }}
    WHERE weight > 0

),

urine_rates AS (

    -- A rate is given only when the window's measurements cover at least its full length
    -- (macros/mimiciv/urine_output_windows.sql). Covered hours are rounded to 2 places.
    SELECT
        uw.stay_id,
        uw.charttime,
        wt.weight,
        uw.uo,
        uw.urineoutput_6hr,
        uw.urineoutput_12hr,
        uw.urineoutput_24hr,
        {{ urine_rate_if_covered('uw.urineoutput_6hr', 'wt.weight', 'uw.uo_tm_6hr', 6) }} AS uo_mlkghr_6hr,
        {{ urine_rate_if_covered('uw.urineoutput_12hr', 'wt.weight', 'uw.uo_tm_12hr', 12) }} AS uo_mlkghr_12hr,
        {{ urine_rate_if_covered('uw.urineoutput_24hr', 'wt.weight', 'uw.uo_tm_24hr', 24) }} AS uo_mlkghr_24hr,
        ROUND({{ dbt.safe_cast("uw.uo_tm_6hr", "DECIMAL(18, 3)") }}, 2) AS uo_tm_6hr,
        ROUND({{ dbt.safe_cast("uw.uo_tm_12hr", "DECIMAL(18, 3)") }}, 2) AS uo_tm_12hr,
        ROUND({{ dbt.safe_cast("uw.uo_tm_24hr", "DECIMAL(18, 3)") }}, 2) AS uo_tm_24hr
    FROM covered_hours AS uw
    LEFT JOIN weights AS wt
        ON
            uw.stay_id = wt.stay_id
            AND uw.charttime > wt.starttime
            AND uw.charttime <= wt.endtime

)

SELECT * FROM urine_rates
{% endmacro %}
