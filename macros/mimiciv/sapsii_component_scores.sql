{#-
  The SAPS II points of each component (Le Gall JR et al., JAMA 1993;270:2957-63,
  table 1), as select-list expressions ending in `admissiontype_score`. Shared by the
  sapsii concept and the sapsii-24h reference, which differ in their windows and
  inputs but not in their points. Expects the columns age, heartrate_min/max,
  sysbp_min/max, tempc_min/max, pao2fio2_vent_min, urineoutput, bun_max, wbc_min/max,
  potassium_min/max, sodium_min/max, bicarbonate_min/max, bilirubin_max, mingcs, aids,
  hem, mets and admissiontype. A component without data, or outside every band, is NULL.
-#}
{% macro sapsii_component_scores() %}
CASE
    WHEN age IS NULL THEN NULL
    WHEN age < 40 THEN 0
    WHEN age < 60 THEN 7
    WHEN age < 70 THEN 12
    WHEN age < 75 THEN 15
    WHEN age < 80 THEN 16
    WHEN age >= 80 THEN 18
END AS age_score,
CASE
    WHEN heartrate_max IS NULL THEN NULL
    WHEN heartrate_min < 40 THEN 11
    WHEN heartrate_max >= 160 THEN 7
    WHEN heartrate_max >= 120 THEN 4
    WHEN heartrate_min < 70 THEN 2
    WHEN heartrate_max >= 70 AND heartrate_max < 120
        AND heartrate_min >= 70 AND heartrate_min < 120 THEN 0
END AS hr_score,
CASE
    WHEN sysbp_min IS NULL THEN NULL
    WHEN sysbp_min < 70 THEN 13
    WHEN sysbp_min < 100 THEN 5
    WHEN sysbp_max >= 200 THEN 2
    WHEN sysbp_max >= 100 AND sysbp_max < 200
        AND sysbp_min >= 100 AND sysbp_min < 200 THEN 0
END AS sysbp_score,
CASE
    WHEN tempc_max IS NULL THEN NULL
    WHEN tempc_max >= 39.0 THEN 3
    WHEN tempc_min < 39.0 THEN 0
END AS temp_score,
CASE
    WHEN pao2fio2_vent_min IS NULL THEN NULL
    WHEN pao2fio2_vent_min < 100 THEN 11
    WHEN pao2fio2_vent_min < 200 THEN 9
    WHEN pao2fio2_vent_min >= 200 THEN 6
END AS pao2fio2_score,
CASE
    WHEN urineoutput IS NULL THEN NULL
    WHEN urineoutput < 500.0 THEN 11
    WHEN urineoutput < 1000.0 THEN 4
    WHEN urineoutput >= 1000.0 THEN 0
END AS uo_score,
CASE
    WHEN bun_max IS NULL THEN NULL
    WHEN bun_max < 28.0 THEN 0
    WHEN bun_max < 84.0 THEN 6
    WHEN bun_max >= 84.0 THEN 10
END AS bun_score,
CASE
    WHEN wbc_max IS NULL THEN NULL
    WHEN wbc_min < 1.0 THEN 12
    WHEN wbc_max >= 20.0 THEN 3
    WHEN wbc_max >= 1.0 AND wbc_max < 20.0
        AND wbc_min >= 1.0 AND wbc_min < 20.0 THEN 0
END AS wbc_score,
CASE
    WHEN potassium_max IS NULL THEN NULL
    WHEN potassium_min < 3.0 THEN 3
    WHEN potassium_max >= 5.0 THEN 3
    WHEN potassium_max >= 3.0 AND potassium_max < 5.0
        AND potassium_min >= 3.0 AND potassium_min < 5.0 THEN 0
END AS potassium_score,
CASE
    WHEN sodium_max IS NULL THEN NULL
    WHEN sodium_min < 125 THEN 5
    WHEN sodium_max >= 145 THEN 1
    WHEN sodium_max >= 125 AND sodium_max < 145
        AND sodium_min >= 125 AND sodium_min < 145 THEN 0
END AS sodium_score,
CASE
    WHEN bicarbonate_max IS NULL THEN NULL
    WHEN bicarbonate_min < 15.0 THEN 6
    WHEN bicarbonate_min < 20.0 THEN 3
    WHEN bicarbonate_max >= 20.0 AND bicarbonate_min >= 20.0 THEN 0
END AS bicarbonate_score,
CASE
    WHEN bilirubin_max IS NULL THEN NULL
    WHEN bilirubin_max < 4.0 THEN 0
    WHEN bilirubin_max < 6.0 THEN 4
    WHEN bilirubin_max >= 6.0 THEN 9
END AS bilirubin_score,
CASE
    WHEN mingcs IS NULL THEN NULL
    -- A total below 3 is not a valid GCS.
    WHEN mingcs < 3 THEN NULL
    WHEN mingcs < 6 THEN 26
    WHEN mingcs < 9 THEN 13
    WHEN mingcs < 11 THEN 7
    WHEN mingcs < 14 THEN 5
    WHEN mingcs >= 14 AND mingcs <= 15 THEN 0
END AS gcs_score,
-- Only the heaviest chronic disease counts.
CASE
    WHEN aids = 1 THEN 17
    WHEN hem = 1 THEN 10
    WHEN mets = 1 THEN 9
    ELSE 0
END AS comorbidity_score,
CASE
    WHEN admissiontype = 'ScheduledSurgical' THEN 0
    WHEN admissiontype = 'Medical' THEN 6
    WHEN admissiontype = 'UnscheduledSurgical' THEN 8
END AS admissiontype_score
{% endmacro %}
