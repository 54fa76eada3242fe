-- Evidence of mechanical ventilation on the first ICU day, one row per unit stay, from the three
-- sources M4Bench benchmark/ground_truth/oasis.sql reads (eicu-code's ventilation_events is not public).
WITH stays AS (

    SELECT patientunitstayid
    FROM {{ ref('stg_eicu_crd__patient') }}

),

apache_intubated AS (

    SELECT DISTINCT patientunitstayid
    FROM {{ ref('stg_eicu_crd__apacheapsvar') }}
    WHERE intubated = 1

),

apache_intubated_day1 AS (

    SELECT DISTINCT patientunitstayid
    FROM {{ ref('stg_eicu_crd__apachepredvar') }}
    WHERE oobintubday1 = 1

),

airway_charted AS (

    -- a respiratory care row in (0, 1440] minutes with any airway or apnoea setting charted
    SELECT DISTINCT patientunitstayid
    FROM {{ ref('stg_eicu_crd__respiratorycare') }}
    WHERE respcarestatusoffset > 0
        AND respcarestatusoffset <= 1440
        AND (
            airwaytype IS NOT NULL
            OR airwaysize IS NOT NULL
            OR airwayposition IS NOT NULL
            OR cuffpressure IS NOT NULL
            OR setapneatv IS NOT NULL
        )

)

SELECT
    stays.patientunitstayid,
    apache_intubated.patientunitstayid IS NOT NULL AS apache_intubated,
    apache_intubated_day1.patientunitstayid IS NOT NULL AS apache_intubated_day1,
    airway_charted.patientunitstayid IS NOT NULL AS airway_charted_day1,
    (
        apache_intubated.patientunitstayid IS NOT NULL
        OR apache_intubated_day1.patientunitstayid IS NOT NULL
        OR airway_charted.patientunitstayid IS NOT NULL
    ) AS ventilated_day1
FROM stays
LEFT JOIN apache_intubated
    ON stays.patientunitstayid = apache_intubated.patientunitstayid
LEFT JOIN apache_intubated_day1
    ON stays.patientunitstayid = apache_intubated_day1.patientunitstayid
LEFT JOIN airway_charted
    ON stays.patientunitstayid = airway_charted.patientunitstayid
