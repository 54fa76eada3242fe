-- Thin staging view of eicu_crd.respiratorycare: the official columns in official order.
WITH source AS (

    SELECT * FROM {{ source('eicu_crd', 'respiratorycare') }}

),

renamed AS (

    SELECT
        respcareid,
        patientunitstayid,
        respcarestatusoffset,
        currenthistoryseqnum,
        airwaytype,
        airwaysize,
        airwayposition,
        cuffpressure,
        ventstartoffset,
        ventendoffset,
        priorventstartoffset,
        priorventendoffset,
        apneaparams,
        lowexhmvlimit,
        hiexhmvlimit,
        lowexhtvlimit,
        hipeakpreslimit,
        lowpeakpreslimit,
        hirespratelimit,
        lowrespratelimit,
        sighpreslimit,
        lowironoxlimit,
        highironoxlimit,
        meanairwaypreslimit,
        peeplimit,
        cpaplimit,
        setapneainterval,
        setapneatv,
        setapneaippeephigh,
        setapnearr,
        setapneapeakflow,
        setapneainsptime,
        setapneaie,
        setapneafio2
    FROM source

)

SELECT * FROM renamed
