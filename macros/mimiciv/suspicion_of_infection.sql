{#-
  Suspicion of infection (Seymour CW et al., JAMA 2016;315:762-74, as mimic-code's
  mimic-iv/concepts/sepsis/suspicion_of_infection.sql builds it): every antibiotic
  prescription of int_mimiciv_medication__antibiotic, numbered per patient (ab_id),
  paired with the first microbiology culture taken up to 72 hours before it, else the
  first taken up to 24 hours after it (a culture with only a date matches antibiotics
  dated 0-3 days after it, or 0-1 day before it). Infection is suspected when either
  culture exists; its time is the culture's when the culture came first, else the
  antibiotic's. A culture is positive when any of its rows names an organism other
  than org_itemid 90856 (a row without org_itemid or with org_name '' never is).

  One query, shared by the suspicion_of_infection concept and the
  suspicion-infection reference; they differ only in two tie-breaks, the arguments:
  - antibiotic_order: the ORDER BY of the ab_id numbering (mimic-code sorts by route
    after the drug name; M4Bench's ground truth does not);
  - culture_order: the ORDER BY choosing the first culture of an antibiotic;
  - before_hours, after_hours: how long before and after the antibiotic a culture pairs with it
    (72 and 24; a culture with only a date: as many whole days), which the reference's variants
    read otherwise (docs/explain.md).
  Columns: subject_id, stay_id, hadm_id, ab_id, antibiotic, antibiotic_time,
  suspected_infection, suspected_infection_time, culture_time, specimen,
  positive_culture.
-#}
{% macro suspicion_of_infection(antibiotic_order, culture_order, before_hours=72, after_hours=24) %}
WITH antibiotics AS (

    SELECT
        subject_id,
        hadm_id,
        stay_id,
        antibiotic,
        starttime AS antibiotic_time,
        {{ m4_datetime_trunc('day', 'starttime') }} AS antibiotic_date,
        ROW_NUMBER() OVER (PARTITION BY subject_id ORDER BY {{ antibiotic_order }}) AS ab_id
    FROM {{ ref('int_mimiciv_medication__antibiotic') }}

),

cultures AS (

    -- One row per specimen.
    SELECT
        micro_specimen_id,
        MAX(subject_id) AS subject_id,
        CAST(MAX(chartdate) AS DATE) AS chartdate,
        MAX(charttime) AS charttime,
        MAX(spec_type_desc) AS spec_type_desc,
        MAX(
            CASE
                WHEN org_name IS NOT NULL AND org_itemid <> 90856 AND org_name <> '' THEN 1
                ELSE 0
            END
        ) AS positive_culture
    FROM {{ ref('stg_mimiciv_hosp__microbiologyevents') }}
    GROUP BY micro_specimen_id

),

cultures_with_time AS (

    SELECT * FROM cultures
    WHERE charttime IS NOT NULL

),

cultures_date_only AS (

    SELECT * FROM cultures
    WHERE charttime IS NULL

),

{%- for side in ['before', 'after'] %}

cultures_{{ side }}_antibiotic AS (

    {%- if side == 'before' %}
    -- Up to 72 hours before the antibiotic (the culture's own time excluded), or dated on
    -- one of the 3 days before the antibiotic's day or on that day.
    {%- else %}
    -- Up to 24 hours after the antibiotic (its own time excluded), or dated on the
    -- antibiotic's day or the day after.
    {%- endif %}
    SELECT
        ab.subject_id,
        ab.ab_id,
        me.micro_specimen_id,
        me.charttime AS culture_time,
        me.positive_culture,
        me.spec_type_desc AS specimen,
        me.chartdate,
        me.charttime
    FROM antibiotics AS ab
    INNER JOIN cultures_with_time AS me
        ON
            ab.subject_id = me.subject_id
            {%- if side == 'before' %}
            AND ab.antibiotic_time > me.charttime
            AND ab.antibiotic_time <= {{ dbt.dateadd('hour', before_hours, 'me.charttime') }}
            {%- else %}
            AND ab.antibiotic_time >= {{ dbt.dateadd('hour', -after_hours, 'me.charttime') }}
            AND ab.antibiotic_time < me.charttime
            {%- endif %}
    UNION ALL
    SELECT
        ab.subject_id,
        ab.ab_id,
        me.micro_specimen_id,
        CAST(me.chartdate AS {{ m4_type('datetime') }}) AS culture_time,
        me.positive_culture,
        me.spec_type_desc AS specimen,
        me.chartdate,
        me.charttime
    FROM antibiotics AS ab
    INNER JOIN cultures_date_only AS me
        ON
            ab.subject_id = me.subject_id
            {%- if side == 'before' %}
            AND ab.antibiotic_date >= me.chartdate
            AND ab.antibiotic_date <= {{ dbt.dateadd('day', before_hours // 24, 'me.chartdate') }}
            {%- else %}
            AND ab.antibiotic_date >= {{ dbt.dateadd('day', -(after_hours // 24), 'me.chartdate') }}
            AND ab.antibiotic_date <= me.chartdate
            {%- endif %}

),

first_culture_{{ side }} AS (

    SELECT
        subject_id,
        ab_id,
        culture_time,
        positive_culture,
        specimen,
        ROW_NUMBER() OVER (PARTITION BY subject_id, ab_id ORDER BY {{ culture_order }}) AS micro_seq
    FROM cultures_{{ side }}_antibiotic

),
{%- endfor %}

suspected_infections AS (

    SELECT
        ab.subject_id,
        ab.stay_id,
        ab.hadm_id,
        ab.ab_id,
        ab.antibiotic,
        ab.antibiotic_time,
        CASE
            WHEN bef.specimen IS NULL AND aft.specimen IS NULL THEN 0
            ELSE 1
        END AS suspected_infection,
        -- Onset: the culture's time when the culture came first, else the antibiotic's.
        CASE
            WHEN bef.specimen IS NULL AND aft.specimen IS NULL THEN NULL
            ELSE COALESCE(bef.culture_time, ab.antibiotic_time)
        END AS suspected_infection_time,
        -- A culture before the antibiotic is preferred over one after it.
        COALESCE(bef.culture_time, aft.culture_time) AS culture_time,
        COALESCE(bef.specimen, aft.specimen) AS specimen,
        COALESCE(bef.positive_culture, aft.positive_culture) AS positive_culture
    FROM antibiotics AS ab
    LEFT JOIN first_culture_after AS aft
        ON
            ab.subject_id = aft.subject_id
            AND ab.ab_id = aft.ab_id
            AND aft.micro_seq = 1
    LEFT JOIN first_culture_before AS bef
        ON
            ab.subject_id = bef.subject_id
            AND ab.ab_id = bef.ab_id
            AND bef.micro_seq = 1

)

SELECT * FROM suspected_infections
{% endmacro %}
