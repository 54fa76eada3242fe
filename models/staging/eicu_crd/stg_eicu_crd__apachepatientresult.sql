-- Thin staging view of eicu_crd.apachepatientresult: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'apachepatientresult') }}

),

renamed AS (

    SELECT
        apachepatientresultsid,
        patientunitstayid,
        physicianspeciality,
        physicianinterventioncategory,
        acutephysiologyscore,
        apachescore,
        apacheversion,
        predictedicumortality,
        actualicumortality,
        predictediculos,
        actualiculos,
        predictedhospitalmortality,
        actualhospitalmortality,
        predictedhospitallos,
        actualhospitallos,
        preopmi,
        preopcardiaccath,
        ptcawithin24h,
        unabridgedunitlos,
        unabridgedhosplos,
        actualventdays,
        predventdays,
        unabridgedactualventdays
    FROM source

)

SELECT * FROM renamed
