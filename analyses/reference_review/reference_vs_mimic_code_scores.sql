-- Review: how far each first-day score reference departs from the mimic-code concept it
-- adapts, per score: stays compared, stays that differ, and the mean and largest absolute
-- difference of the totals. The departures are the documented ones (missing components
-- scored 0 instead of NULL, arterial-only PaO2/FiO2 in SOFA, the APS III tie fix); a
-- difference elsewhere points at a bug. Run with `dbt compile` and execute the compiled SQL.

WITH pairs AS (
    SELECT 'sofa' AS score, ref.stay_id, ref.sofa AS reference_total, concept.sofa AS concept_total
    FROM {{ ref('ref_sofa_24h') }} AS ref
    LEFT JOIN {{ ref('int_mimiciv_firstday__first_day_sofa') }} AS concept
        ON ref.stay_id = concept.stay_id
    UNION ALL
    SELECT 'sirs', ref.stay_id, ref.sirs, concept.sirs
    FROM {{ ref('ref_sirs_24h') }} AS ref
    LEFT JOIN {{ ref('int_mimiciv_score__sirs') }} AS concept
        ON ref.stay_id = concept.stay_id
    UNION ALL
    SELECT 'oasis', ref.stay_id, ref.oasis, concept.oasis
    FROM {{ ref('ref_oasis_24h') }} AS ref
    LEFT JOIN {{ ref('int_mimiciv_score__oasis') }} AS concept
        ON ref.stay_id = concept.stay_id
    UNION ALL
    SELECT 'sapsii', ref.stay_id, ref.sapsii, concept.sapsii
    FROM {{ ref('ref_sapsii_24h') }} AS ref
    LEFT JOIN {{ ref('int_mimiciv_score__sapsii') }} AS concept
        ON ref.stay_id = concept.stay_id
    UNION ALL
    SELECT 'apsiii', ref.stay_id, ref.apsiii, concept.apsiii
    FROM {{ ref('ref_apsiii_24h') }} AS ref
    LEFT JOIN {{ ref('int_mimiciv_score__apsiii') }} AS concept
        ON ref.stay_id = concept.stay_id
    UNION ALL
    SELECT 'meld', ref.stay_id, ref.meld, concept.meld
    FROM {{ ref('ref_meld_24h') }} AS ref
    LEFT JOIN {{ ref('int_mimiciv_organfailure__meld') }} AS concept
        ON ref.stay_id = concept.stay_id
)

SELECT
    score,
    COUNT(*) AS stays,
    COUNT(*) FILTER (WHERE reference_total IS DISTINCT FROM concept_total) AS stays_differing,
    AVG(ABS(reference_total - concept_total)) AS mean_abs_difference,
    MAX(ABS(reference_total - concept_total)) AS max_abs_difference
FROM pairs
GROUP BY score
ORDER BY score
