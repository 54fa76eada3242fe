-- Time in hospital before the unit admission (pre-ICU length of stay), one row per unit stay.
WITH stays AS (

    SELECT
        patientunitstayid,
        hospitaladmitoffset
    FROM {{ ref('stg_eicu_crd__patient') }}

)

SELECT
    patientunitstayid,
    hospitaladmitoffset,
    -- hospitaladmitoffset counts minutes from unit admission back to hospital admission (<= 0)
    -1 * hospitaladmitoffset AS pre_icu_los_minutes
FROM stays
