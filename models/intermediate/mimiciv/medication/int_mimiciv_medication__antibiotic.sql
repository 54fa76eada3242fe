-- Prescriptions of systemic antibiotics (and antifungals), with the ICU stay they started in.
-- mimic-code: mimic-iv/concepts/medication/antibiotic.sql (m4-infra snapshot).
{{ config(alias='antibiotic') }}

WITH prescriptions AS (

    SELECT
        subject_id,
        hadm_id,
        drug_type,
        drug,
        route,
        starttime,
        stoptime
    FROM {{ ref('stg_mimiciv_hosp__prescriptions') }}

),

icustays AS (

    SELECT
        hadm_id,
        stay_id,
        intime,
        outtime
    FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

antibiotic_patterns AS (

    SELECT name_pattern
    FROM {{ ref('drug_class_name_patterns') }}
    WHERE drug_class = 'antibiotic'

),

exclusions AS (

    SELECT
        exclusion_field,
        match_type,
        match_value
    FROM {{ ref('antibiotic_exclusions') }}

),

drug_routes AS (

    -- Each kind of order once; a missing drug, route or type never qualifies.
    SELECT DISTINCT
        drug_type,
        drug,
        route
    FROM prescriptions
    WHERE
        drug_type IS NOT NULL
        AND drug IS NOT NULL
        AND route IS NOT NULL

),

excluded_drug_routes AS (

    SELECT DISTINCT
        dr.drug_type,
        dr.drug,
        dr.route
    FROM drug_routes AS dr
    INNER JOIN exclusions AS ex
        ON
            (ex.match_type = 'equals' AND ex.exclusion_field = 'drug_type' AND dr.drug_type = ex.match_value)
            OR (ex.match_type = 'equals' AND ex.exclusion_field = 'route' AND dr.route = ex.match_value)
            OR (ex.match_type = 'contains' AND ex.exclusion_field = 'route' AND LOWER(dr.route) LIKE '%' || ex.match_value || '%')
            OR (ex.match_type = 'contains' AND ex.exclusion_field = 'drug' AND LOWER(dr.drug) LIKE '%' || ex.match_value || '%')

),

eligible_drug_routes AS (

    SELECT
        dr.drug,
        dr.route
    FROM drug_routes AS dr
    LEFT JOIN excluded_drug_routes AS ex
        ON
            dr.drug_type = ex.drug_type
            AND dr.drug = ex.drug
            AND dr.route = ex.route
    WHERE ex.drug IS NULL

),

antibiotic_drug_routes AS (

    -- A (drug, route) qualifies when some non-excluded order of it names an antibiotic;
    -- every order with that drug and route then counts, whatever its drug_type
    -- (mimic-code matches the qualifying pairs back to all prescriptions).
    SELECT DISTINCT
        el.drug,
        el.route
    FROM eligible_drug_routes AS el
    INNER JOIN antibiotic_patterns AS pat
        ON LOWER(el.drug) LIKE '%' || pat.name_pattern || '%'

),

antibiotic_prescriptions AS (

    -- The ICU stay is the one whose [intime, outtime) contains the start of the order.
    SELECT
        rx.subject_id,
        rx.hadm_id,
        ie.stay_id,
        rx.drug AS antibiotic,
        rx.route,
        rx.starttime,
        rx.stoptime
    FROM prescriptions AS rx
    INNER JOIN antibiotic_drug_routes AS abx
        ON
            rx.drug = abx.drug
            AND rx.route = abx.route
    LEFT JOIN icustays AS ie
        ON
            rx.hadm_id = ie.hadm_id
            AND rx.starttime >= ie.intime
            AND rx.starttime < ie.outtime

)

SELECT * FROM antibiotic_prescriptions
