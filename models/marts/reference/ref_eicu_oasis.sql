-- Reference for eicu-oasis: the Oxford Acute Severity of Illness Score of each eICU unit stay over
-- its first 24 hours. Follows hannesill/m4 benchmark/ground_truth/oasis.sql (itself eicu-code
-- pivoted-oasis.sql with pivoted-vital, pivoted-gcs and pivoted-uo inlined).
-- Reference: Johnson AEW, Kramer AA, Clifford GD. Crit Care Med. 2013;41(7):1711-1718.
WITH stays AS (

    SELECT
        patientunitstayid,
        uniquepid,
        patienthealthsystemstayid,
        unitadmitsource
    FROM {{ ref('stg_eicu_crd__patient') }}

),

pre_icu_los_score AS (

    SELECT
        patientunitstayid,
        CASE
            WHEN pre_icu_los_minutes < 10.2 THEN 5
            WHEN pre_icu_los_minutes BETWEEN 10.2 AND 296.4 THEN 3
            WHEN pre_icu_los_minutes BETWEEN 296.4 AND 1440 THEN 0
            WHEN pre_icu_los_minutes BETWEEN 1440 AND 18708 THEN 2
            WHEN pre_icu_los_minutes > 18708 THEN 1
        END AS preiculos_score
    FROM {{ ref('int_eicu__pre_icu_los') }}

),

age_years AS (

    -- age is text: '> 89' counts as 91, '' and other text as missing
    SELECT
        patientunitstayid,
        MAX(CASE WHEN age = '> 89' THEN 91 ELSE {{ dbt.safe_cast('age', 'INTEGER') }} END) AS age_years
    FROM {{ ref('stg_eicu_crd__patient') }}
    GROUP BY patientunitstayid

),

age_score AS (

    SELECT
        patientunitstayid,
        CASE
            WHEN age_years < 24 THEN 0
            WHEN age_years BETWEEN 24 AND 53 THEN 3
            WHEN age_years BETWEEN 54 AND 77 THEN 6
            WHEN age_years BETWEEN 78 AND 89 THEN 9
            WHEN age_years > 89 THEN 7
        END AS age_score
    FROM age_years

),

gcs_charted_day1 AS (

    SELECT
        patientunitstayid,
        MIN(gcs) AS gcs_min
    FROM {{ ref('int_eicu__gcs_charted') }}
    WHERE chartoffset > 0
        AND chartoffset <= 1440
    GROUP BY patientunitstayid

),

gcs_exam_day1 AS (

    SELECT
        patientunitstayid,
        MIN(gcs) AS gcs_min
    FROM {{ ref('int_eicu__gcs_physical_exam') }}
    WHERE physicalexamoffset > 0
        AND physicalexamoffset <= 1440
    GROUP BY patientunitstayid

),

gcs_score AS (

    -- the charted total (components are not used), else the physical exam
    SELECT
        stays.patientunitstayid,
        CASE
            WHEN COALESCE(gcs_charted_day1.gcs_min, gcs_exam_day1.gcs_min) < 8 THEN 10
            WHEN COALESCE(gcs_charted_day1.gcs_min, gcs_exam_day1.gcs_min) BETWEEN 8 AND 13 THEN 4
            WHEN COALESCE(gcs_charted_day1.gcs_min, gcs_exam_day1.gcs_min) = 14 THEN 3
            WHEN COALESCE(gcs_charted_day1.gcs_min, gcs_exam_day1.gcs_min) = 15 THEN 0
        END AS gcs_score
    FROM stays
    LEFT JOIN gcs_charted_day1
        ON stays.patientunitstayid = gcs_charted_day1.patientunitstayid
    LEFT JOIN gcs_exam_day1
        ON stays.patientunitstayid = gcs_exam_day1.patientunitstayid

),

vitals_day1 AS (

    -- respiratory rate 0 is a valid maximum but not a valid minimum
    SELECT
        patientunitstayid,
        MIN(CASE WHEN vital = 'heart_rate' THEN valuenum END) AS heart_rate_min,
        MAX(CASE WHEN vital = 'heart_rate' THEN valuenum END) AS heart_rate_max,
        MIN(CASE WHEN vital = 'resp_rate' AND valuenum > 0 THEN valuenum END) AS resp_rate_min,
        MAX(CASE WHEN vital = 'resp_rate' THEN valuenum END) AS resp_rate_max,
        MIN(CASE WHEN vital = 'temperature' THEN valuenum END) AS temperature_min,
        MAX(CASE WHEN vital = 'temperature' THEN valuenum END) AS temperature_max,
        MIN(CASE WHEN vital = 'ibp_mean' THEN valuenum END) AS ibp_mean_min,
        MAX(CASE WHEN vital = 'ibp_mean' THEN valuenum END) AS ibp_mean_max,
        MIN(CASE WHEN vital = 'nibp_mean' THEN valuenum END) AS nibp_mean_min,
        MAX(CASE WHEN vital = 'nibp_mean' THEN valuenum END) AS nibp_mean_max
    FROM {{ ref('int_eicu__vitals_charted') }}
    WHERE chartoffset > 0
        AND chartoffset <= 1440
    GROUP BY patientunitstayid

),

vital_scores AS (

    -- cut-points as published; a value falling between two bands (e.g. 36.395) scores NULL, then 0
    SELECT
        patientunitstayid,
        CASE
            WHEN heart_rate_min < 33 THEN 4
            WHEN heart_rate_max BETWEEN 33 AND 88 THEN 0
            WHEN heart_rate_max BETWEEN 89 AND 106 THEN 1
            WHEN heart_rate_max BETWEEN 107 AND 125 THEN 3
            WHEN heart_rate_max > 125 THEN 6
        END AS heart_rate_score,
        -- invasive mean pressure first, the non-invasive one only when no invasive band applies
        CASE
            WHEN ibp_mean_min < 20.65 THEN 4
            WHEN ibp_mean_min BETWEEN 20.65 AND 50.99 THEN 3
            WHEN ibp_mean_min BETWEEN 51 AND 61.32 THEN 2
            WHEN ibp_mean_min BETWEEN 61.33 AND 143.44 THEN 0
            WHEN ibp_mean_max > 143.44 THEN 3
            WHEN nibp_mean_min < 20.65 THEN 4
            WHEN nibp_mean_min BETWEEN 20.65 AND 50.99 THEN 3
            WHEN nibp_mean_min BETWEEN 51 AND 61.32 THEN 2
            WHEN nibp_mean_min BETWEEN 61.33 AND 143.44 THEN 0
            WHEN nibp_mean_max > 143.44 THEN 3
        END AS mbp_score,
        CASE
            WHEN resp_rate_min < 6 THEN 10
            WHEN resp_rate_min BETWEEN 6 AND 12 THEN 1
            WHEN resp_rate_min BETWEEN 13 AND 22 THEN 0
            WHEN resp_rate_max BETWEEN 23 AND 30 THEN 1
            WHEN resp_rate_max BETWEEN 31 AND 44 THEN 6
            WHEN resp_rate_max > 44 THEN 9
        END AS resp_rate_score,
        CASE
            WHEN temperature_min < 33.22 THEN 3
            WHEN temperature_min BETWEEN 33.22 AND 35.93 THEN 4
            WHEN temperature_max BETWEEN 33.22 AND 35.93 THEN 4
            WHEN temperature_min BETWEEN 35.94 AND 36.39 THEN 2
            WHEN temperature_max BETWEEN 36.40 AND 36.88 THEN 0
            WHEN temperature_max BETWEEN 36.89 AND 39.88 THEN 2
            WHEN temperature_max > 39.88 THEN 6
        END AS temp_score
    FROM vitals_day1

),

urine_io_day1 AS (

    SELECT
        patientunitstayid,
        SUM(urineoutput) AS urineoutput
    FROM {{ ref('int_eicu__urine_output') }}
    WHERE intakeoutputoffset > 0
        AND intakeoutputoffset <= 1440
    GROUP BY patientunitstayid

),

urine_apache AS (

    -- APACHE's first-day urine, used only when positive (-1 means missing)
    SELECT
        patientunitstayid,
        MAX(urine) AS urineoutput
    FROM {{ ref('stg_eicu_crd__apacheapsvar') }}
    WHERE urine > 0
    GROUP BY patientunitstayid

),

urine_score AS (

    SELECT
        stays.patientunitstayid,
        CASE
            WHEN COALESCE(urine_io_day1.urineoutput, urine_apache.urineoutput) < 671 THEN 10
            WHEN COALESCE(urine_io_day1.urineoutput, urine_apache.urineoutput) BETWEEN 671 AND 1426.99 THEN 5
            WHEN COALESCE(urine_io_day1.urineoutput, urine_apache.urineoutput) BETWEEN 1427 AND 2543.99 THEN 1
            WHEN COALESCE(urine_io_day1.urineoutput, urine_apache.urineoutput) BETWEEN 2544 AND 6896 THEN 0
            WHEN COALESCE(urine_io_day1.urineoutput, urine_apache.urineoutput) > 6896 THEN 8
        END AS urineoutput_score
    FROM stays
    LEFT JOIN urine_io_day1
        ON stays.patientunitstayid = urine_io_day1.patientunitstayid
    LEFT JOIN urine_apache
        ON stays.patientunitstayid = urine_apache.patientunitstayid

),

mechvent_score AS (

    SELECT
        patientunitstayid,
        CASE WHEN ventilated_day1 THEN 9 ELSE 0 END AS mechvent_score
    FROM {{ ref('int_eicu__ventilation_evidence') }}

),

apache_elective AS (

    SELECT
        patientunitstayid,
        MIN(electivesurgery) AS electivesurgery
    FROM {{ ref('stg_eicu_crd__apachepredvar') }}
    GROUP BY patientunitstayid

),

electivesurgery_score AS (

    -- 0 only for a stay APACHE flags as elective surgery (any value but 0 or NULL, -1 included)
    -- that was not admitted from the emergency department
    SELECT
        stays.patientunitstayid,
        CASE
            WHEN apache_elective.electivesurgery = 0 THEN 6
            WHEN apache_elective.electivesurgery IS NULL THEN 6
            WHEN stays.unitadmitsource = 'Emergency Department' THEN 6
            ELSE 0
        END AS electivesurgery_score
    FROM stays
    LEFT JOIN apache_elective
        ON stays.patientunitstayid = apache_elective.patientunitstayid

),

component_scores AS (

    -- a component without data scores 0
    SELECT
        stays.patientunitstayid,
        stays.uniquepid,
        stays.patienthealthsystemstayid,
        COALESCE(pre_icu_los_score.preiculos_score, 0) AS preiculos_score,
        COALESCE(age_score.age_score, 0) AS age_score,
        COALESCE(gcs_score.gcs_score, 0) AS gcs_score,
        COALESCE(vital_scores.heart_rate_score, 0) AS heart_rate_score,
        COALESCE(vital_scores.mbp_score, 0) AS mbp_score,
        COALESCE(vital_scores.resp_rate_score, 0) AS resp_rate_score,
        COALESCE(vital_scores.temp_score, 0) AS temp_score,
        COALESCE(urine_score.urineoutput_score, 0) AS urineoutput_score,
        COALESCE(mechvent_score.mechvent_score, 0) AS mechvent_score,
        COALESCE(electivesurgery_score.electivesurgery_score, 0) AS electivesurgery_score
    FROM stays
    LEFT JOIN pre_icu_los_score
        ON stays.patientunitstayid = pre_icu_los_score.patientunitstayid
    LEFT JOIN age_score
        ON stays.patientunitstayid = age_score.patientunitstayid
    LEFT JOIN gcs_score
        ON stays.patientunitstayid = gcs_score.patientunitstayid
    LEFT JOIN vital_scores
        ON stays.patientunitstayid = vital_scores.patientunitstayid
    LEFT JOIN urine_score
        ON stays.patientunitstayid = urine_score.patientunitstayid
    LEFT JOIN mechvent_score
        ON stays.patientunitstayid = mechvent_score.patientunitstayid
    LEFT JOIN electivesurgery_score
        ON stays.patientunitstayid = electivesurgery_score.patientunitstayid

)

SELECT
    patientunitstayid,
    uniquepid,
    patienthealthsystemstayid,
    CAST(
        preiculos_score + age_score + gcs_score + heart_rate_score + mbp_score + resp_rate_score
        + temp_score + urineoutput_score + mechvent_score + electivesurgery_score
        AS INTEGER
    ) AS oasis,
    CAST(preiculos_score AS INTEGER) AS preiculos_score,
    CAST(age_score AS INTEGER) AS age_score,
    CAST(gcs_score AS INTEGER) AS gcs_score,
    CAST(heart_rate_score AS INTEGER) AS heart_rate_score,
    CAST(mbp_score AS INTEGER) AS mbp_score,
    CAST(resp_rate_score AS INTEGER) AS resp_rate_score,
    CAST(temp_score AS INTEGER) AS temp_score,
    CAST(urineoutput_score AS INTEGER) AS urineoutput_score,
    CAST(mechvent_score AS INTEGER) AS mechvent_score,
    CAST(electivesurgery_score AS INTEGER) AS electivesurgery_score
FROM component_scores
