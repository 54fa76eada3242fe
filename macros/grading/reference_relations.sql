{#-
  The reference models grading can read, by model name, each as dbt resolves it with ref(): the
  MIMIC-IV ones in schema reference of the main database, the eICU ones in the attached eicu
  database. Called at the top of int_grading__truth_rows, so dbt's graph records that grading
  depends on every reference while it parses (a ref() made only at run time would not be
  recorded). Which of them a batch reads is known only at run time, from its tasks.
  tests/test_project_rules.py holds this list equal to the models in models/marts/reference and
  to the reference models the registry's tasks name.
-#}
{% macro m4_reference_relations() %}
    {%- set names = [
        'ref_apsiii_24h', 'ref_charlson', 'ref_creatinine_baseline', 'ref_eicu_gcs', 'ref_eicu_oasis',
        'ref_gcs_24h', 'ref_kdigo_48h', 'ref_meld_24h', 'ref_oasis_24h', 'ref_sapsii_24h', 'ref_sepsis3',
        'ref_sirs_24h', 'ref_sofa_24h', 'ref_suspicion_infection', 'ref_urine_output_rate',
        'ref_vasopressor_equivalents', 'ref_ventilation',
    ] -%}
    {%- set relations = {} -%}
    {%- for name in names %}{% do relations.update({name: ref(name)}) %}{% endfor -%}
    {{ return(relations) }}
{% endmacro %}


{#-
  The built relation of a model a task is graded against: a reference of m4_reference_relations, or one
  of its variants (`<reference>__<convention>__<reading>`, models/marts/reference_variants; `m4agent
  explain` grades outputs against them). A variant is looked up by name beside its reference, not
  through ref(): its model is enabled only when variants are built (var m4_variants, docs/explain.md).
  none when the model is not built or names no reference.
-#}
{% macro m4_graded_relation(model, references) %}
    {%- if model in references %}
        {{- return(load_relation(references[model])) }}
    {%- endif %}
    {%- set reference = model.split('__')[0] %}
    {%- if reference not in references or model.count('__') != 2 %}
        {{- return(none) }}
    {%- endif %}
    {%- set beside = references[reference] %}
    {{- return(adapter.get_relation(database=beside.database, schema=beside.schema, identifier=model)) }}
{% endmacro %}
