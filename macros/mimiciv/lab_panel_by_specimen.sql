{#-
  One row per lab specimen with one column per concept of a lab panel, the
  shape of mimic-code's measurement/{chemistry, complete_blood_count, enzyme,
  inflammation, cardiac_marker, coagulation}.sql.

  - Item ids, output column (`concept`) and plausible maximum (`valid_max`, a
    value above it becomes NULL) come from the seed `mimiciv_lab_items`, rows
    whose `concept_table` is `panel`.
  - `positive_only`: only values > 0 count (mimic-code's filter for most
    panels); `nonpositive_allowed` lists concepts exempt from it (the anion
    gap may be zero or negative).
  - Identifiers and charttime are taken with MAX per specimen, as mimic-code does.
-#}
{% macro lab_panel_by_specimen(panel, concepts, positive_only=true, nonpositive_allowed=[]) %}

WITH lab_items AS (

    SELECT
        itemid,
        concept,
        valid_max
    FROM {{ ref('mimiciv_lab_items') }}
    WHERE concept_table = '{{ panel }}'

),

lab_values AS (

    SELECT
        le.subject_id,
        le.hadm_id,
        le.charttime,
        le.specimen_id,
        items.concept,
        CASE
            WHEN items.valid_max IS NULL OR le.valuenum <= items.valid_max THEN le.valuenum
        END AS valuenum
    FROM {{ ref('int_mimiciv_events__labevents_used') }} AS le
    INNER JOIN lab_items AS items
        ON le.itemid = items.itemid
    WHERE le.valuenum IS NOT NULL
    {%- if positive_only %}
        AND (le.valuenum > 0
        {%- for concept in nonpositive_allowed %} OR items.concept = '{{ concept }}'{% endfor %})
    {%- endif %}

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

{% endmacro %}
