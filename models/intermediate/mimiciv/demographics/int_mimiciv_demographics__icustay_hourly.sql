-- One row per ICU stay and hour, from 24 hours before the first charted heart rate
-- to the hour after the last one.
-- mimic-code: mimic-iv/concepts/demographics/icustay_hourly.sql.
{{ config(alias='icustay_hourly') }}

WITH stay_times AS (

    SELECT
        stay_id,
        intime_hr,
        outtime_hr
    FROM {{ ref('int_mimiciv_demographics__icustay_times') }}

),

hour_ranges AS (

    SELECT
        stay_id,
        -- the end of hour 0 is intime_hr rounded up to the next whole hour
        CASE
            WHEN {{ m4_datetime_trunc('hour', 'intime_hr') }} = intime_hr THEN intime_hr
            ELSE {{ dbt.dateadd('hour', 1, m4_datetime_trunc('hour', 'intime_hr')) }}
        END AS first_endtime,
        {{ m4_integer_series(
            '-24',
            dbt.safe_cast(
                "CEIL(" ~ dbt.datediff("intime_hr", "outtime_hr", "microsecond") ~ " / 3600000000.0)",
                "INTEGER")) }} AS hour_offsets
    FROM stay_times

),

stay_hours AS (

    SELECT
        hour_ranges.stay_id,
        CAST(hr AS BIGINT) AS hr,
        {{ dbt.dateadd('hour', 'hr', 'hour_ranges.first_endtime') }} AS endtime
    FROM hour_ranges
    CROSS JOIN {{ m4_unnest('hour_ranges.hour_offsets', 'hr') }}

)

SELECT * FROM stay_hours
