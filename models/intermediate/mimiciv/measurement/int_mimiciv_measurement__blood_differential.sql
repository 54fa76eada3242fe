-- White blood cell differential, one row per lab specimen. Absolute counts missing from
-- a specimen are imputed from the percentage and the WBC count.
-- mimic-code: mimic-iv/concepts/measurement/blood_differential.sql (m4-infra snapshot).
-- Item ids come from the seed mimiciv_lab_items (concept_table = 'blood_differential').
{{ config(alias='blood_differential') }}

{%- set absolute_counts = ['basophils', 'eosinophils', 'lymphocytes', 'monocytes', 'neutrophils'] %}
{%- set other_columns = ['atypical_lymphocytes', 'bands', 'immature_granulocytes', 'metamyelocytes', 'nrbc'] %}

WITH lab_items AS (

    SELECT
        itemid,
        concept,
        divisor
    FROM {{ ref('mimiciv_lab_items') }}
    WHERE concept_table = 'blood_differential'

),

lab_values AS (

    -- Only non-negative values count. Counts charted per uL are divided by 1000 (K/uL).
    SELECT
        le.subject_id,
        le.hadm_id,
        le.charttime,
        le.specimen_id,
        items.concept,
        le.valuenum / items.divisor AS valuenum
    FROM {{ ref('int_mimiciv_events__labevents_used') }} AS le
    INNER JOIN lab_items AS items
        ON le.itemid = items.itemid
    WHERE
        le.valuenum IS NOT NULL
        AND le.valuenum >= 0

),

specimens AS (

    -- granulocytes_abs (51218) is read but not output: a specimen holding only it still
    -- yields a row, as in mimic-code.
    SELECT
        MAX(subject_id) AS subject_id,
        MAX(hadm_id) AS hadm_id,
        MAX(charttime) AS charttime,
        specimen_id,
        MAX(CASE WHEN concept = 'wbc' THEN valuenum END) AS wbc
        {%- for cell in absolute_counts %},
        MAX(CASE WHEN concept = '{{ cell }}_abs' THEN valuenum END) AS {{ cell }}_abs
        {%- endfor %}
        {%- for column in absolute_counts + other_columns %},
        MAX(CASE WHEN concept = '{{ column }}' THEN valuenum END) AS {{ column }}
        {%- endfor %},
        -- imputation is possible when the specimen has a positive WBC count and its
        -- percentages sum to more than zero
        COALESCE(
            MAX(CASE WHEN concept = 'wbc' THEN valuenum END) > 0
            AND SUM(CASE WHEN concept IN ('{{ absolute_counts | join("', '") }}') THEN valuenum END) > 0,
            FALSE
        ) AS can_impute
    FROM lab_values
    GROUP BY specimen_id

),

imputed AS (

    -- absolute count = percentage x WBC / 100 when only the percentage was measured;
    -- cast to DECIMAL(18, 3) (mimic-code then rounds to 4 places, which keeps 3)
    SELECT
        subject_id,
        hadm_id,
        charttime,
        specimen_id,
        wbc
        {%- for cell in absolute_counts %},
        {{ dbt.safe_cast(
            "CASE WHEN " ~ cell ~ "_abs IS NULL AND " ~ cell ~ " IS NOT NULL AND can_impute THEN "
            ~ cell ~ " * wbc / 100 ELSE " ~ cell ~ "_abs END",
            "DECIMAL(18, 3)") }} AS {{ cell }}_abs
        {%- endfor %}
        {%- for column in absolute_counts + other_columns %},
        {{ column }}
        {%- endfor %}
    FROM specimens

)

SELECT * FROM imputed
