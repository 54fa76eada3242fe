-- Reference for eicu-gcs: the lowest Glasgow Coma Scale of each eICU unit stay between 6 hours
-- before and 24 hours after unit admission, with the components of the lowest assessment.
-- Follows hannesill/m4 benchmark/ground_truth/gcs.sql (itself eicu-code pivoted-gcs.sql plus a
-- first-day minimum). Reference: Teasdale G, Jennett B. Lancet 1974;2(7872):81-84.
WITH stays AS (

    SELECT
        patientunitstayid,
        uniquepid,
        patienthealthsystemstayid
    FROM {{ ref('stg_eicu_crd__patient') }}

),

assessments_in_window AS (

    -- the charted total when it is valid, else the components with normal defaults for the missing ones
    SELECT
        patientunitstayid,
        chartoffset,
        COALESCE(gcs, COALESCE(gcs_eyes, 4) + COALESCE(gcs_motor, 6) + COALESCE(gcs_verbal, 5)) AS gcs_total,
        gcs_motor,
        gcs_verbal,
        gcs_eyes
    FROM {{ ref('int_eicu__gcs_charted') }}
    WHERE chartoffset >= -360
        AND chartoffset <= 1440

),

ranked_assessments AS (

    -- lowest total first; ties go to the earliest offset (one row per offset, so no further ties)
    SELECT
        patientunitstayid,
        gcs_total,
        gcs_motor,
        gcs_verbal,
        gcs_eyes,
        ROW_NUMBER() OVER (
            PARTITION BY patientunitstayid
            ORDER BY gcs_total, chartoffset
        ) AS assessment_rank
    FROM assessments_in_window

),

lowest_assessment AS (

    SELECT
        patientunitstayid,
        gcs_total,
        gcs_motor,
        gcs_verbal,
        gcs_eyes
    FROM ranked_assessments
    WHERE assessment_rank = 1

)

SELECT
    stays.patientunitstayid,
    stays.uniquepid,
    stays.patienthealthsystemstayid,
    CAST(COALESCE(lowest_assessment.gcs_total, 15) AS DECIMAL(18, 3)) AS gcs_min,
    CAST(COALESCE(lowest_assessment.gcs_motor, 6) AS DECIMAL(18, 3)) AS gcs_motor,
    CAST(COALESCE(lowest_assessment.gcs_verbal, 5) AS DECIMAL(18, 3)) AS gcs_verbal,
    CAST(COALESCE(lowest_assessment.gcs_eyes, 4) AS DECIMAL(18, 3)) AS gcs_eyes
FROM stays
LEFT JOIN lowest_assessment
    ON stays.patientunitstayid = lowest_assessment.patientunitstayid
