-- Glasgow Coma Scale totals documented in the structured physical exam (physicalexam).
-- Paths as eicu-code concepts/pivoted/pivoted-oasis.sql and M4Bench benchmark/ground_truth/oasis.sql read them.
WITH gcs_exam_rows AS (

    -- the total sits in a last path segment of one or two characters ('.../GCS/8', '.../GCS/15');
    -- component paths ('.../GCS/Eyes Score/4') and 'scored' flags are longer and do not match
    SELECT
        physicalexamid,
        patientunitstayid,
        physicalexamoffset,
        physicalexampath,
        physicalexamvalue
    FROM {{ ref('stg_eicu_crd__physicalexam') }}
    WHERE (
        physicalexampath LIKE 'notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS/_'
        OR physicalexampath LIKE 'notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS/__'
    )
    AND physicalexamvalue IS NOT NULL

)

SELECT
    physicalexamid,
    patientunitstayid,
    physicalexamoffset,
    physicalexampath,
    {{ dbt.safe_cast('physicalexamvalue', 'DECIMAL(18, 3)') }} AS gcs
FROM gcs_exam_rows
