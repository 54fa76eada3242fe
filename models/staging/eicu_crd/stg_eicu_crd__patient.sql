-- Thin staging view of eicu_crd.patient: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'patient') }}

),

renamed AS (

    SELECT
        patientunitstayid,
        patienthealthsystemstayid,
        gender,
        age,
        ethnicity,
        hospitalid,
        wardid,
        apacheadmissiondx,
        admissionheight,
        hospitaladmittime24,
        hospitaladmitoffset,
        hospitaladmitsource,
        hospitaldischargeyear,
        hospitaldischargetime24,
        hospitaldischargeoffset,
        hospitaldischargelocation,
        hospitaldischargestatus,
        unittype,
        unitadmittime24,
        unitadmitsource,
        unitvisitnumber,
        unitstaytype,
        admissionweight,
        dischargeweight,
        unitdischargetime24,
        unitdischargeoffset,
        unitdischargelocation,
        unitdischargestatus,
        uniquepid
    FROM source

)

SELECT * FROM renamed
