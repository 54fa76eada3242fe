-- Urine output over the preceding 6, 12 and 24 hours and as mL/kg/h, one row per ICU
-- stay and urine output charttime (more if weight periods overlap at that time).
-- mimic-code: mimic-iv/concepts/measurement/urine_output_rate.sql (m4-infra snapshot).
{{ config(alias='urine_output_rate') }}

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
    -- heart rate for the stay's first measurement
    SELECT
        hr.stay_id,
        uo.charttime,
        uo.urineoutput,
        {{ dbt.datediff(
            "COALESCE(LAG(uo.charttime) OVER (PARTITION BY hr.stay_id ORDER BY uo.charttime NULLS FIRST), hr.intime_hr)",
            "uo.charttime", "microsecond") }} / 60000000.0 AS tm_since_last_uo
    FROM heart_rate_bounds AS hr
    INNER JOIN {{ ref('int_mimiciv_measurement__urine_output') }} AS uo
        ON hr.stay_id = uo.stay_id

),

urine_windows AS (

    -- For each measurement, the measurements of the same stay up to 23 hours earlier
    -- (5 and 11 hours for the 6- and 12-hour sums: a measurement covers the hour before
    -- it). As in mimic-code, uo is the sum of the DISTINCT volumes charted at this time.
    SELECT
        cur.stay_id,
        cur.charttime,
        SUM(DISTINCT cur.urineoutput) AS uo,
        SUM(CASE WHEN {{ dbt.datediff('win.charttime', 'cur.charttime', 'microsecond') }} / 3600000000.0 <= 5
            THEN win.urineoutput END) AS urineoutput_6hr,
        SUM(CASE WHEN {{ dbt.datediff('win.charttime', 'cur.charttime', 'microsecond') }} / 3600000000.0 <= 5
            THEN win.tm_since_last_uo END) / 60.0 AS uo_tm_6hr,
        SUM(CASE WHEN {{ dbt.datediff('win.charttime', 'cur.charttime', 'microsecond') }} / 3600000000.0 <= 11
            THEN win.urineoutput END) AS urineoutput_12hr,
        SUM(CASE WHEN {{ dbt.datediff('win.charttime', 'cur.charttime', 'microsecond') }} / 3600000000.0 <= 11
            THEN win.tm_since_last_uo END) / 60.0 AS uo_tm_12hr,
        SUM(win.urineoutput) AS urineoutput_24hr,
        SUM(win.tm_since_last_uo) / 60.0 AS uo_tm_24hr
    FROM urine_intervals AS cur
    LEFT JOIN urine_intervals AS win
        ON
            cur.stay_id = win.stay_id
            AND cur.charttime >= win.charttime
            AND cur.charttime <= {{ dbt.dateadd('hour', 23, 'win.charttime') }}
    GROUP BY cur.stay_id, cur.charttime

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

    -- A rate is given only when the window's measurements cover at least its full length.
    -- Rates are cast to DECIMAL(18, 3) (mimic-code then rounds to 4 places, which keeps
    -- 3); covered hours are rounded to 2 places.
    SELECT
        uw.stay_id,
        uw.charttime,
        wt.weight,
        uw.uo,
        uw.urineoutput_6hr,
        uw.urineoutput_12hr,
        uw.urineoutput_24hr,
        CASE WHEN uw.uo_tm_6hr >= 6 THEN
            {{ dbt.safe_cast("uw.urineoutput_6hr / wt.weight / uw.uo_tm_6hr", "DECIMAL(18, 3)") }}
        END AS uo_mlkghr_6hr,
        CASE WHEN uw.uo_tm_12hr >= 12 THEN
            {{ dbt.safe_cast("uw.urineoutput_12hr / wt.weight / uw.uo_tm_12hr", "DECIMAL(18, 3)") }}
        END AS uo_mlkghr_12hr,
        CASE WHEN uw.uo_tm_24hr >= 24 THEN
            {{ dbt.safe_cast("uw.urineoutput_24hr / wt.weight / uw.uo_tm_24hr", "DECIMAL(18, 3)") }}
        END AS uo_mlkghr_24hr,
        ROUND({{ dbt.safe_cast("uw.uo_tm_6hr", "DECIMAL(18, 3)") }}, 2) AS uo_tm_6hr,
        ROUND({{ dbt.safe_cast("uw.uo_tm_12hr", "DECIMAL(18, 3)") }}, 2) AS uo_tm_12hr,
        ROUND({{ dbt.safe_cast("uw.uo_tm_24hr", "DECIMAL(18, 3)") }}, 2) AS uo_tm_24hr
    FROM urine_windows AS uw
    LEFT JOIN weights AS wt
        ON
            uw.stay_id = wt.stay_id
            AND uw.charttime > wt.starttime
            AND uw.charttime <= wt.endtime

)

SELECT * FROM urine_rates
