-- Blood chemistry panel, one row per lab specimen.
-- mimic-code: mimic-iv/concepts/measurement/chemistry.sql (m4-infra snapshot).
-- Item ids, output columns and plausible maxima come from the seed mimiciv_lab_items.
{{ config(alias='chemistry') }}

{%- set concepts = ['albumin', 'globulin', 'total_protein', 'aniongap', 'bicarbonate', 'bun', 'calcium', 'chloride', 'creatinine', 'glucose', 'sodium', 'potassium'] %}

WITH lab_items AS (

    SELECT
        itemid,
        concept,
        valid_max
    FROM {{ ref('mimiciv_lab_items') }}
    WHERE concept_table = 'chemistry'

),

lab_values AS (

    -- Only positive values count, except the anion gap, which may be zero or negative.
    SELECT
        le.subject_id,
        le.hadm_id,
        le.charttime,
        le.specimen_id,
        items.concept,
        CASE
            WHEN items.valid_max IS NULL OR le.valuenum <= items.valid_max THEN le.valuenum
        END AS valuenum
    FROM {{ ref('stg_mimiciv_hosp__labevents') }} AS le
    INNER JOIN lab_items AS items
        ON le.itemid = items.itemid
    WHERE
        le.valuenum IS NOT NULL
        AND (le.valuenum > 0 OR items.concept = 'aniongap')

),

specimens AS (

    SELECT
        MAX(subject_id) AS subject_id,
        MAX(hadm_id) AS hadm_id,
        MAX(charttime) AS charttime,
        specimen_id
        {%- for concept in concepts %},
        MAX(CASE WHEN concept = '{{ concept }}' THEN valuenum END) AS {{ concept }}
        {%- endfor %}
    FROM lab_values
    GROUP BY specimen_id

)

SELECT * FROM specimens
