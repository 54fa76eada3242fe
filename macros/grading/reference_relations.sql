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
