-- Blood gases, one row per subject and charttime of a blood-gas specimen with a pO2,
-- with the closest preceding SpO2 and charted FiO2 and the derived A-a gradient and
-- PaO2/FiO2 ratio.
-- mimic-code: mimic-iv/concepts/measurement/bg.sql (m4-infra snapshot).
-- Item ids and plausible maxima come from the seed mimiciv_lab_items (concept_table = 'bg').
{{ config(alias='bg') }}

{%- set numeric_concepts = [
    'aado2', 'baseexcess', 'bicarbonate', 'totalco2', 'carboxyhemoglobin', 'chloride',
    'calcium', 'glucose', 'hematocrit', 'hemoglobin', 'lactate', 'methemoglobin', 'o2flow',
    'so2', 'pco2', 'peep', 'ph', 'po2', 'potassium', 'requiredo2', 'sodium', 'temperature'] %}

WITH lab_items AS (

    SELECT
        itemid,
        concept,
        valid_max
    FROM {{ ref('mimiciv_lab_items') }}
    WHERE concept_table = 'bg'

),

lab_values AS (

    SELECT
        le.subject_id,
        le.hadm_id,
        le.charttime,
        le.storetime,
        le.specimen_id,
        items.concept,
        le.value,
        CASE
            -- oxygen (50816): a fraction in (0.2, 1] becomes a percentage, a percentage in
            -- (20, 100] is kept, anything else is NULL
            WHEN items.concept = 'fio2' THEN
                CASE
                    WHEN le.valuenum > 20 AND le.valuenum <= 100 THEN le.valuenum
                    WHEN le.valuenum > 0.2 AND le.valuenum <= 1.0 THEN le.valuenum * 100.0
                END
            WHEN items.valid_max IS NULL OR le.valuenum <= items.valid_max THEN le.valuenum
        END AS valuenum
    FROM {{ ref('int_mimiciv_events__labevents_used') }} AS le
    INNER JOIN lab_items AS items
        ON le.itemid = items.itemid

),

specimens AS (

    SELECT
        MAX(subject_id) AS subject_id,
        MAX(hadm_id) AS hadm_id,
        MAX(charttime) AS charttime,
        MAX(storetime) AS storetime,
        specimen_id,
        MAX(CASE WHEN concept = 'specimen' THEN value END) AS specimen,
        MAX(CASE WHEN concept = 'fio2' THEN valuenum END) AS fio2
        {%- for concept in numeric_concepts %},
        MAX(CASE WHEN concept = '{{ concept }}' THEN valuenum END) AS {{ concept }}
        {%- endfor %}
    FROM lab_values
    GROUP BY specimen_id

),

gas_specimens AS (

    -- a specimen is a blood gas only when it has a pO2
    SELECT * FROM specimens
    WHERE po2 IS NOT NULL

),

charted_spo2 AS (

    SELECT
        subject_id,
        charttime,
        AVG(valuenum) AS spo2
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        itemid = 220277  -- O2 saturation pulseoxymetry
        AND valuenum > 0
        AND valuenum <= 100
    GROUP BY subject_id, charttime

),

charted_fio2 AS (

    -- Inspired O2 Fraction (223835) within (0, 100]: a fraction in (0.2, 1] becomes a
    -- percentage, (1, 20) is implausible (NULL), [20, 100] is kept
    SELECT
        subject_id,
        charttime,
        MAX(
            CASE
                WHEN valuenum > 0.2 AND valuenum <= 1 THEN valuenum * 100
                WHEN valuenum > 1 AND valuenum < 20 THEN NULL
                WHEN valuenum >= 20 AND valuenum <= 100 THEN valuenum
            END
        ) AS fio2_chartevents
    FROM {{ ref('int_mimiciv_events__chartevents_used') }}
    WHERE
        itemid = 223835
        AND valuenum > 0
        AND valuenum <= 100
    GROUP BY subject_id, charttime

),

with_spo2 AS (

    -- the latest SpO2 in the two hours up to the gas; one row per subject and charttime.
    -- When two specimens share a charttime the lowest specimen_id is kept: m4-infra's
    -- ROW_NUMBER leaves this tie to the engine (its pick moves with row order and threads),
    -- and the lowest is one of its possible picks (ORIGINAL_TIES, bg_simultaneous_specimens).
    SELECT
        gas.*,
        spo2.spo2,
        ROW_NUMBER() OVER (
            PARTITION BY gas.subject_id, gas.charttime
            ORDER BY spo2.charttime DESC NULLS LAST, gas.specimen_id
        ) AS spo2_recency
    FROM gas_specimens AS gas
    LEFT JOIN charted_spo2 AS spo2
        ON
            gas.subject_id = spo2.subject_id
            AND spo2.charttime BETWEEN {{ dbt.dateadd('hour', -2, 'gas.charttime') }} AND gas.charttime

),

with_fio2 AS (

    -- the latest charted FiO2 in the four hours up to the gas (one gas per subject and
    -- charttime remains, and charted FiO2 has one row per subject and charttime: no ties)
    SELECT
        gas.*,
        fio2.fio2_chartevents,
        ROW_NUMBER() OVER (
            PARTITION BY gas.subject_id, gas.charttime ORDER BY fio2.charttime DESC NULLS LAST
        ) AS fio2_recency
    FROM with_spo2 AS gas
    LEFT JOIN charted_fio2 AS fio2
        ON
            gas.subject_id = fio2.subject_id
            AND fio2.charttime >= {{ dbt.dateadd('hour', -4, 'gas.charttime') }}
            AND fio2.charttime <= gas.charttime
            AND fio2.fio2_chartevents > 0
    WHERE gas.spo2_recency = 1

),

final AS (

    SELECT
        subject_id,
        hadm_id,
        charttime,
        specimen,
        so2,
        po2,
        pco2,
        fio2_chartevents,
        fio2,
        aado2,
        -- alveolar-arterial gradient: FiO2 x (760 - 47) - PaCO2 / 0.8 - PaO2, with the lab
        -- FiO2 preferred over the charted one
        CASE
            WHEN po2 IS NULL OR pco2 IS NULL THEN NULL
            WHEN fio2 IS NOT NULL THEN (fio2 / 100) * (760 - 47) - (pco2 / 0.8) - po2
            WHEN fio2_chartevents IS NOT NULL
                THEN (fio2_chartevents / 100) * (760 - 47) - (pco2 / 0.8) - po2
        END AS aado2_calc,
        CASE
            WHEN po2 IS NULL THEN NULL
            WHEN fio2 IS NOT NULL THEN 100 * po2 / fio2
            WHEN fio2_chartevents IS NOT NULL THEN 100 * po2 / fio2_chartevents
        END AS pao2fio2ratio,
        ph,
        baseexcess,
        bicarbonate,
        totalco2,
        hematocrit,
        hemoglobin,
        carboxyhemoglobin,
        methemoglobin,
        chloride,
        calcium,
        temperature,
        potassium,
        sodium,
        lactate,
        glucose
    FROM with_fio2
    WHERE fio2_recency = 1

)

SELECT * FROM final
