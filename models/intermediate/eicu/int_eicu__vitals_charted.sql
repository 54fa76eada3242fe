-- Vital signs charted in nursecharting (heart rate, respiratory rate, temperature, invasive and
-- non-invasive mean arterial pressure), one row per plausible charted value.
-- Logic of eicu-code concepts/pivoted/pivoted-vital.sql as M4Bench benchmark/ground_truth/oasis.sql runs it.
WITH vital_cells AS (

    SELECT
        nursingchartcelltypevallabel,
        nursingchartcelltypevalname,
        vital,
        valid_low,
        valid_high
    FROM {{ ref('eicu_nursecharting_vital_cells') }}

),

vital_rows AS (

    SELECT
        nursecharting.nursingchartid,
        nursecharting.patientunitstayid,
        nursecharting.nursingchartoffset AS chartoffset,
        vital_cells.vital,
        vital_cells.valid_low,
        vital_cells.valid_high,
        {{ dbt.safe_cast('nursecharting.nursingchartvalue', 'DECIMAL(18, 3)') }} AS valuenum
    FROM {{ ref('stg_eicu_crd__nursecharting') }} AS nursecharting
    INNER JOIN vital_cells
        ON nursecharting.nursingchartcelltypevallabel = vital_cells.nursingchartcelltypevallabel
        AND nursecharting.nursingchartcelltypevalname = vital_cells.nursingchartcelltypevalname
    WHERE nursecharting.nursingchartcelltypecat IN ('Vital Signs', 'Scores', 'Other Vital Signs and Infusions')

),

plausible AS (

    SELECT
        nursingchartid,
        patientunitstayid,
        chartoffset,
        vital,
        valuenum
    FROM vital_rows
    WHERE valuenum >= valid_low
        AND valuenum <= valid_high

)

SELECT
    nursingchartid,
    patientunitstayid,
    chartoffset,
    vital,
    valuenum
FROM plausible
