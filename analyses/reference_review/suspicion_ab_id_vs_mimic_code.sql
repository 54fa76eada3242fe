-- Review: the suspicion-infection reference numbers antibiotics with explicit tie-breakers
-- (start, stop, name, hadm_id, stay_id); mimic-code's suspicion_of_infection orders by time
-- only. This lists the (subject_id, ab_id) pairs whose antibiotic or result differs between
-- the two, i.e. the rows an agent copying mimic-code's order could lose.

SELECT
    ref.subject_id,
    ref.ab_id,
    ref.antibiotic AS reference_antibiotic,
    concept.antibiotic AS concept_antibiotic,
    ref.antibiotic_time AS reference_antibiotic_time,
    concept.antibiotic_time AS concept_antibiotic_time,
    ref.suspected_infection AS reference_suspected_infection,
    concept.suspected_infection AS concept_suspected_infection
FROM {{ ref('ref_suspicion_infection') }} AS ref
FULL OUTER JOIN {{ ref('int_mimiciv_sepsis__suspicion_of_infection') }} AS concept
    ON ref.subject_id = concept.subject_id
    AND ref.ab_id = concept.ab_id
WHERE ref.antibiotic IS DISTINCT FROM concept.antibiotic
    OR ref.antibiotic_time IS DISTINCT FROM concept.antibiotic_time
    OR ref.suspected_infection IS DISTINCT FROM concept.suspected_infection
ORDER BY COALESCE(ref.subject_id, concept.subject_id), COALESCE(ref.ab_id, concept.ab_id)
