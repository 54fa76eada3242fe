-- Glasgow Coma Scale charted in nursecharting, pivoted to one row per stay and chart offset.
-- Logic of eicu-code concepts/pivoted/pivoted-gcs.sql as M4Bench benchmark/ground_truth/gcs.sql runs it.
-- Reference: Teasdale G, Jennett B. Lancet 1974;2(7872):81-84.
WITH gcs_cells AS (

    SELECT
        nursingchartcelltypevallabel,
        nursingchartcelltypevalname,
        gcs_component
    FROM {{ ref('eicu_nursecharting_gcs_cells') }}

),

gcs_rows AS (

    -- text such as 'Unable to score due to medication' does not parse and becomes NULL;
    -- DECIMAL(18, 3) is what DuckDB's NUMERIC means, the type the original casts to
    SELECT
        nursecharting.patientunitstayid,
        nursecharting.nursingchartoffset AS chartoffset,
        gcs_cells.gcs_component,
        {{ dbt.safe_cast('nursecharting.nursingchartvalue', 'DECIMAL(18, 3)') }} AS valuenum
    FROM {{ ref('stg_eicu_crd__nursecharting') }} AS nursecharting
    INNER JOIN gcs_cells
        ON nursecharting.nursingchartcelltypevallabel = gcs_cells.nursingchartcelltypevallabel
        AND nursecharting.nursingchartcelltypevalname = gcs_cells.nursingchartcelltypevalname
    WHERE nursecharting.nursingchartcelltypecat IN ('Scores', 'Other Vital Signs and Infusions')

),

per_offset AS (

    -- several cells at one offset (both total spellings, repeated components): the lowest wins
    SELECT
        patientunitstayid,
        chartoffset,
        MIN(CASE WHEN gcs_component = 'total' THEN valuenum END) AS gcs_total_charted,
        MIN(CASE WHEN gcs_component = 'motor' THEN valuenum END) AS gcs_motor,
        MIN(CASE WHEN gcs_component = 'verbal' THEN valuenum END) AS gcs_verbal,
        MIN(CASE WHEN gcs_component = 'eyes' THEN valuenum END) AS gcs_eyes
    FROM gcs_rows
    GROUP BY patientunitstayid, chartoffset

),

range_checked AS (

    -- only the total is range checked (3-15), after taking the minimum; components pass as charted
    SELECT
        patientunitstayid,
        chartoffset,
        CASE WHEN gcs_total_charted > 2 AND gcs_total_charted < 16 THEN gcs_total_charted END AS gcs,
        gcs_motor,
        gcs_verbal,
        gcs_eyes
    FROM per_offset
    WHERE gcs_total_charted IS NOT NULL
        OR gcs_motor IS NOT NULL
        OR gcs_verbal IS NOT NULL
        OR gcs_eyes IS NOT NULL

)

SELECT
    patientunitstayid,
    chartoffset,
    gcs,
    gcs_motor,
    gcs_verbal,
    gcs_eyes
FROM range_checked
