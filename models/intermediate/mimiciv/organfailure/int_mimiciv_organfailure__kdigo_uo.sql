-- Urine output over the preceding 6, 12 and 24 hours of each charted output, as
-- mL/kg/h: the inputs of the KDIGO urine-output criteria.
-- mimic-code: mimic-iv/concepts/organfailure/kdigo_uo.sql (m4-infra snapshot).
{{ config(alias='kdigo_uo') }}

WITH icustays AS (

    SELECT
        stay_id,
        intime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

urine_output AS (

    SELECT
        stay_id,
        charttime,
        urineoutput
    FROM {{ ref('int_mimiciv_measurement__urine_output') }}

),

weight_durations AS (

    SELECT
        stay_id,
        starttime,
        endtime,
        weight
    FROM {{ ref('int_mimiciv_demographics__weight_durations') }}

),

timed_outputs AS (

    -- Each output covers the hours since the previous output of the stay (1 hour for
    -- the first one).
    SELECT
        ie.stay_id,
        uo.charttime,
        CAST({{ dbt.datediff('ie.intime', 'uo.charttime', 'microsecond') }} / 1000000.0 AS INTEGER)
            AS seconds_since_admit,
        COALESCE(
            {{ dbt.datediff(
                'LAG(uo.charttime) OVER (PARTITION BY ie.stay_id ORDER BY uo.charttime NULLS FIRST)',
                'uo.charttime',
                'microsecond'
            ) }} / 1000000.0 / 3600.0,
            1
        ) AS hours_since_previous_row,
        uo.urineoutput
    FROM icustays AS ie
    INNER JOIN urine_output AS uo
        ON ie.stay_id = uo.stay_id

),

rolling_sums AS (

    -- Output and hours covered by the rows charted in the last 6, 12 and 24 hours
    -- (the current row included).
    SELECT
        stay_id,
        charttime,
        {%- for hours in [6, 12, 24] %}
        SUM(urineoutput) OVER (
            PARTITION BY stay_id ORDER BY seconds_since_admit NULLS FIRST
            RANGE BETWEEN {{ hours * 3600 }} PRECEDING AND CURRENT ROW
        ) AS urineoutput_{{ hours }}hr,
        {%- endfor %}
        {%- for hours in [6, 12, 24] %}
        SUM(hours_since_previous_row) OVER (
            PARTITION BY stay_id ORDER BY seconds_since_admit NULLS FIRST
            RANGE BETWEEN {{ hours * 3600 }} PRECEDING AND CURRENT ROW
        ) AS uo_tm_{{ hours }}hr{{ ',' if not loop.last }}
        {%- endfor %}
    FROM timed_outputs

),

output_rates AS (

    -- A rate needs at least the window's hours of documented output; the 6-hour rate
    -- also needs less than 12 (mimic-code's rule). Rates are rounded to 4 places after
    -- a cast to DECIMAL (DuckDB's default DECIMAL(18,3)).
    SELECT
        ur.stay_id,
        ur.charttime,
        wd.weight,
        ur.urineoutput_6hr,
        ur.urineoutput_12hr,
        ur.urineoutput_24hr,
        CASE
            WHEN ur.uo_tm_6hr >= 6 AND ur.uo_tm_6hr < 12
                THEN ROUND({{ dbt.safe_cast('ur.urineoutput_6hr / wd.weight / ur.uo_tm_6hr', 'DECIMAL') }}, 4)
        END AS uo_rt_6hr,
        CASE
            WHEN ur.uo_tm_12hr >= 12
                THEN ROUND({{ dbt.safe_cast('ur.urineoutput_12hr / wd.weight / ur.uo_tm_12hr', 'DECIMAL') }}, 4)
        END AS uo_rt_12hr,
        CASE
            WHEN ur.uo_tm_24hr >= 24
                THEN ROUND({{ dbt.safe_cast('ur.urineoutput_24hr / wd.weight / ur.uo_tm_24hr', 'DECIMAL') }}, 4)
        END AS uo_rt_24hr,
        ur.uo_tm_6hr,
        ur.uo_tm_12hr,
        ur.uo_tm_24hr
    FROM rolling_sums AS ur
    LEFT JOIN weight_durations AS wd
        ON
            ur.stay_id = wd.stay_id
            AND ur.charttime >= wd.starttime
            AND ur.charttime < wd.endtime

)

SELECT * FROM output_rates
