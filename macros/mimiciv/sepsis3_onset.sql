{#-
  The sepsis3 concept's SQL (mimic-code sepsis/sepsis3.sql as vendored by m4-infra): the first
  suspected infection of each ICU stay with an hourly 24-hour SOFA of 2 or more near it. Shared by
  the concept (int_mimiciv_sepsis__sepsis3) and the sepsis3 reference's variants, which read its
  conventions otherwise (docs/explain.md); the defaults are mimic-code's.

  hours_before, hours_after: the SOFA endtime from hours_before before to hours_after after the
  suspected infection time, both ends included (48 and 24 in mimic-code).
  baseline: 'zero' (mimic-code: the baseline SOFA is assumed 0, so a SOFA of 2 qualifies) or
  'lowest_before' (a SOFA qualifies when it is 2 or more above the stay's lowest hourly SOFA ending
  at or before the suspected infection time; 0 when none ends then).
  onset_order: 'suspicion_first' (mimic-code: the earliest suspected infection, then antibiotic,
  culture and SOFA time) or 'sofa_first' (the earliest qualifying SOFA time first).
-#}
{% macro sepsis3_onset(hours_before=48, hours_after=24, baseline='zero', onset_order='suspicion_first') %}
WITH sofa AS (

    -- Hourly SOFA (worst values of the preceding 24 hours) of at least 2. With baseline 'zero'
    -- (mimic-code) the baseline SOFA is 0, so a score of 2 is an increase of 2.
    SELECT
        stay_id,
        starttime,
        endtime,
        respiration_24hours AS respiration,
        coagulation_24hours AS coagulation,
        liver_24hours AS liver,
        cardiovascular_24hours AS cardiovascular,
        cns_24hours AS cns,
        renal_24hours AS renal,
        sofa_24hours AS sofa_score
    FROM {{ ref('int_mimiciv_score__sofa') }}
    WHERE sofa_24hours >= 2

),

suspicion_of_infection AS (

    SELECT
        subject_id,
        stay_id,
        ab_id,
        antibiotic_time,
        culture_time,
        suspected_infection,
        suspected_infection_time
    FROM {{ ref('int_mimiciv_sepsis__suspicion_of_infection') }}
    WHERE stay_id IS NOT NULL

),
{%- if baseline == 'lowest_before' %}

baselines AS (

    -- each suspicion's baseline: the stay's lowest hourly SOFA ending at or before it, else 0
    SELECT
        soi.stay_id,
        soi.ab_id,
        COALESCE(MIN(hourly.sofa_24hours), 0) AS baseline_sofa
    FROM suspicion_of_infection AS soi
    LEFT JOIN {{ ref('int_mimiciv_score__sofa') }} AS hourly
        ON
            soi.stay_id = hourly.stay_id
            AND hourly.endtime <= soi.suspected_infection_time
    GROUP BY soi.stay_id, soi.ab_id

),
{%- endif %}

infections_with_organ_dysfunction AS (

    SELECT
        soi.subject_id,
        soi.stay_id,
        soi.antibiotic_time,
        soi.culture_time,
        soi.suspected_infection_time,
        sofa.endtime AS sofa_time,
        sofa.sofa_score,
        sofa.respiration,
        sofa.coagulation,
        sofa.liver,
        sofa.cardiovascular,
        sofa.cns,
        sofa.renal,
        sofa.sofa_score >= 2 AND soi.suspected_infection = 1 AS sepsis3,
        ROW_NUMBER() OVER (
            PARTITION BY soi.stay_id
            ORDER BY
                {%- if onset_order == 'sofa_first' %}
                sofa.endtime NULLS FIRST,
                {%- endif %}
                soi.suspected_infection_time NULLS FIRST,
                soi.antibiotic_time NULLS FIRST,
                soi.culture_time NULLS FIRST,
                sofa.endtime NULLS FIRST,
                soi.ab_id
        ) AS rn_sus
    FROM suspicion_of_infection AS soi
    INNER JOIN sofa
        ON
            soi.stay_id = sofa.stay_id
            AND sofa.endtime >= {{ dbt.dateadd('hour', -hours_before, 'soi.suspected_infection_time') }}
            AND sofa.endtime <= {{ dbt.dateadd('hour', hours_after, 'soi.suspected_infection_time') }}
    {%- if baseline == 'lowest_before' %}
    INNER JOIN baselines
        ON
            soi.stay_id = baselines.stay_id
            AND soi.ab_id = baselines.ab_id
    WHERE sofa.sofa_score - baselines.baseline_sofa >= 2
    {%- endif %}

),

sepsis_onset AS (

    -- The earliest suspected infection (then antibiotic, culture and SOFA time) of the stay.
    SELECT
        subject_id,
        stay_id,
        antibiotic_time,
        culture_time,
        suspected_infection_time,
        sofa_time,
        sofa_score,
        respiration,
        coagulation,
        liver,
        cardiovascular,
        cns,
        renal,
        sepsis3
    FROM infections_with_organ_dysfunction
    WHERE rn_sus = 1

)

SELECT * FROM sepsis_onset
{% endmacro %}
