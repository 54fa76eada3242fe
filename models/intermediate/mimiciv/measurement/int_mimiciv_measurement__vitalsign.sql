-- Vital signs, one row per subject, ICU stay and charttime, each the average of the
-- plausible values charted at that time.
-- mimic-code: mimic-iv/concepts/measurement/vitalsign.sql (m4-infra snapshot).
-- Item ids and plausibility ranges come from the seed mimiciv_vitalsign_items.
{{ config(alias='vitalsign') }}

WITH vital_items AS (

    SELECT
        itemid,
        concept,
        is_noninvasive,
        valid_above,
        valid_below,
        valid_up_to
    FROM {{ ref('mimiciv_vitalsign_items') }}

),

vital_rows AS (

    -- values outside the item's plausibility range become NULL
    SELECT
        ce.subject_id,
        ce.stay_id,
        ce.charttime,
        items.concept,
        items.is_noninvasive,
        ce.value,
        CASE
            WHEN
                (items.valid_above IS NULL OR ce.valuenum > items.valid_above)
                AND (items.valid_below IS NULL OR ce.valuenum < items.valid_below)
                AND (items.valid_up_to IS NULL OR ce.valuenum <= items.valid_up_to)
                THEN ce.valuenum
        END AS valuenum
    FROM {{ ref('int_mimiciv_events__chartevents_used') }} AS ce
    INNER JOIN vital_items AS items
        ON ce.itemid = items.itemid
    WHERE ce.stay_id IS NOT NULL

),

vitals_per_charttime AS (

    SELECT
        subject_id,
        stay_id,
        charttime,
        AVG(CASE WHEN concept = 'heart_rate' THEN valuenum END) AS heart_rate,
        AVG(CASE WHEN concept = 'sbp' THEN valuenum END) AS sbp,
        AVG(CASE WHEN concept = 'dbp' THEN valuenum END) AS dbp,
        AVG(CASE WHEN concept = 'mbp' THEN valuenum END) AS mbp,
        AVG(CASE WHEN concept = 'sbp' AND is_noninvasive THEN valuenum END) AS sbp_ni,
        AVG(CASE WHEN concept = 'dbp' AND is_noninvasive THEN valuenum END) AS dbp_ni,
        AVG(CASE WHEN concept = 'mbp' AND is_noninvasive THEN valuenum END) AS mbp_ni,
        AVG(CASE WHEN concept = 'resp_rate' THEN valuenum END) AS resp_rate,
        -- degrees Celsius; Fahrenheit is converted after its range check, and the average
        -- is cast to DECIMAL(18, 3) and rounded to 2 places as in mimic-code
        ROUND(
            {{ dbt.safe_cast(
                "AVG(CASE WHEN concept = 'temperature_f' THEN (valuenum - 32) / 1.8 "
                ~ "WHEN concept = 'temperature_c' THEN valuenum END)",
                "DECIMAL(18, 3)") }},
            2
        ) AS temperature,
        MAX(CASE WHEN concept = 'temperature_site' THEN value END) AS temperature_site,
        AVG(CASE WHEN concept = 'spo2' THEN valuenum END) AS spo2,
        AVG(CASE WHEN concept = 'glucose' THEN valuenum END) AS glucose
    FROM vital_rows
    GROUP BY subject_id, stay_id, charttime

)

SELECT * FROM vitals_per_charttime
