-- Sequential Organ Failure Assessment (SOFA), hour by hour, with each organ's worst
-- score over the last 24 hours.
-- Vincent JL, Moreno R, Takala J, et al. The SOFA (Sepsis-related Organ Failure Assessment)
-- score to describe organ dysfunction/failure. Intensive Care Med. 1996;22(7):707-710.
-- Follows mimic-code mimic-iv/concepts/score/sofa.sql as vendored by m4-infra 0.5.9.
{{ config(alias='sofa') }}

WITH icustays AS (

    SELECT * FROM {{ ref('stg_mimiciv_icu__icustays') }}

),

icustay_hours AS (

    -- One row per stay and hour; hour hr covers (endtime - 1 hour, endtime].
    SELECT
        icustay_hourly.stay_id,
        icustays.hadm_id,
        icustay_hourly.hr,
        {{ dbt.dateadd('hour', -1, 'icustay_hourly.endtime') }} AS starttime,
        icustay_hourly.endtime
    FROM {{ ref('int_mimiciv_demographics__icustay_hourly') }} AS icustay_hourly
    INNER JOIN icustays
        ON icustay_hourly.stay_id = icustays.stay_id

),

stay_hour_zero AS (

    -- The end of hour 0 of each stay's grid, and its admission (labs are matched on hadm_id).
    SELECT
        stay_id,
        MIN(hadm_id) AS hadm_id,
        MIN({{ dbt.dateadd('hour', '-hr', 'endtime') }}) AS hour_zero_end
    FROM icustay_hours
    GROUP BY stay_id

),

invasive_ventilation AS (

    {{ invasive_ventilation_episodes() }}

),

arterial_pao2fio2 AS (

    -- Arterial gases of the patient (matched on subject_id), the PaO2/FiO2 ratio split by
    -- whether the stay was invasively ventilated at the time of the gas.
    SELECT
        icustays.stay_id,
        bg.charttime,
        CASE WHEN invasive_ventilation.stay_id IS NULL THEN bg.pao2fio2ratio END AS pao2fio2ratio_novent,
        CASE WHEN invasive_ventilation.stay_id IS NOT NULL THEN bg.pao2fio2ratio END AS pao2fio2ratio_vent
    FROM icustays
    INNER JOIN {{ ref('int_mimiciv_measurement__bg') }} AS bg
        ON icustays.subject_id = bg.subject_id
    LEFT JOIN invasive_ventilation
        ON icustays.stay_id = invasive_ventilation.stay_id
        AND {{ during_invasive_ventilation('bg.charttime', 'invasive_ventilation') }}
    WHERE bg.specimen = 'ART.'

),

vasopressor_infusions AS (

    -- the four agents SOFA scores (macro shared with first_day_sofa)
    {{ sofa_vasopressor_infusions() }}

),

hourly_mbp AS (

    SELECT
        vitalsign.stay_id,
        {{ hour_ending('vitalsign.charttime', 'stay_hour_zero.hour_zero_end') }} AS hr,
        MIN(vitalsign.mbp) AS meanbp_min
    FROM {{ ref('int_mimiciv_measurement__vitalsign') }} AS vitalsign
    INNER JOIN stay_hour_zero
        ON vitalsign.stay_id = stay_hour_zero.stay_id
    GROUP BY vitalsign.stay_id, hr

),

hourly_gcs AS (

    SELECT
        gcs.stay_id,
        {{ hour_ending('gcs.charttime', 'stay_hour_zero.hour_zero_end') }} AS hr,
        MIN(gcs.gcs) AS gcs_min
    FROM {{ ref('int_mimiciv_measurement__gcs') }} AS gcs
    INNER JOIN stay_hour_zero
        ON gcs.stay_id = stay_hour_zero.stay_id
    GROUP BY gcs.stay_id, hr

),

hourly_bilirubin AS (

    -- Labs are matched on hadm_id: a lab without hadm_id never counts.
    SELECT
        stay_hour_zero.stay_id,
        {{ hour_ending('enzyme.charttime', 'stay_hour_zero.hour_zero_end') }} AS hr,
        MAX(enzyme.bilirubin_total) AS bilirubin_max
    FROM {{ ref('int_mimiciv_measurement__enzyme') }} AS enzyme
    INNER JOIN stay_hour_zero
        ON enzyme.hadm_id = stay_hour_zero.hadm_id
    GROUP BY stay_hour_zero.stay_id, hr

),

hourly_creatinine AS (

    SELECT
        stay_hour_zero.stay_id,
        {{ hour_ending('chemistry.charttime', 'stay_hour_zero.hour_zero_end') }} AS hr,
        MAX(chemistry.creatinine) AS creatinine_max
    FROM {{ ref('int_mimiciv_measurement__chemistry') }} AS chemistry
    INNER JOIN stay_hour_zero
        ON chemistry.hadm_id = stay_hour_zero.hadm_id
    GROUP BY stay_hour_zero.stay_id, hr

),

hourly_platelets AS (

    SELECT
        stay_hour_zero.stay_id,
        {{ hour_ending('complete_blood_count.charttime', 'stay_hour_zero.hour_zero_end') }} AS hr,
        MIN(complete_blood_count.platelet) AS platelet_min
    FROM {{ ref('int_mimiciv_measurement__complete_blood_count') }} AS complete_blood_count
    INNER JOIN stay_hour_zero
        ON complete_blood_count.hadm_id = stay_hour_zero.hadm_id
    GROUP BY stay_hour_zero.stay_id, hr

),

hourly_pao2fio2 AS (

    SELECT
        arterial_pao2fio2.stay_id,
        {{ hour_ending('arterial_pao2fio2.charttime', 'stay_hour_zero.hour_zero_end') }} AS hr,
        MIN(arterial_pao2fio2.pao2fio2ratio_novent) AS pao2fio2ratio_novent,
        MIN(arterial_pao2fio2.pao2fio2ratio_vent) AS pao2fio2ratio_vent
    FROM arterial_pao2fio2
    INNER JOIN stay_hour_zero
        ON arterial_pao2fio2.stay_id = stay_hour_zero.stay_id
    GROUP BY arterial_pao2fio2.stay_id, hr

),

hourly_urine_output AS (

    -- Urine output over the preceding 24 hours, scaled to 24 hours, only when the
    -- measured span covers 22 to 30 hours.
    SELECT
        urine_output_rate.stay_id,
        {{ hour_ending('urine_output_rate.charttime', 'stay_hour_zero.hour_zero_end') }} AS hr,
        MAX(
            CASE
                WHEN urine_output_rate.uo_tm_24hr >= 22 AND urine_output_rate.uo_tm_24hr <= 30
                    THEN urine_output_rate.urineoutput_24hr / urine_output_rate.uo_tm_24hr * 24
            END
        ) AS uo_24hr
    FROM {{ ref('int_mimiciv_measurement__urine_output_rate') }} AS urine_output_rate
    INNER JOIN stay_hour_zero
        ON urine_output_rate.stay_id = stay_hour_zero.stay_id
    GROUP BY urine_output_rate.stay_id, hr

),

hourly_vasopressor_rates AS (

    -- Highest rate of each agent among infusions running at the end of the hour;
    -- only hours with at least one infusion get a row.
    SELECT
        icustay_hours.stay_id,
        icustay_hours.hr,
        MAX(CASE WHEN vasopressor_infusions.agent = 'epinephrine' THEN vasopressor_infusions.vaso_rate END)
            AS rate_epinephrine,
        MAX(CASE WHEN vasopressor_infusions.agent = 'norepinephrine' THEN vasopressor_infusions.vaso_rate END)
            AS rate_norepinephrine,
        MAX(CASE WHEN vasopressor_infusions.agent = 'dopamine' THEN vasopressor_infusions.vaso_rate END)
            AS rate_dopamine,
        MAX(CASE WHEN vasopressor_infusions.agent = 'dobutamine' THEN vasopressor_infusions.vaso_rate END)
            AS rate_dobutamine
    FROM icustay_hours
    INNER JOIN vasopressor_infusions
        ON icustay_hours.stay_id = vasopressor_infusions.stay_id
        AND icustay_hours.endtime > vasopressor_infusions.starttime
        AND icustay_hours.endtime <= vasopressor_infusions.endtime
    GROUP BY icustay_hours.stay_id, icustay_hours.hr

),

hourly_components AS (

    SELECT
        icustay_hours.stay_id,
        icustay_hours.hr,
        icustay_hours.starttime,
        icustay_hours.endtime,
        hourly_pao2fio2.pao2fio2ratio_novent,
        hourly_pao2fio2.pao2fio2ratio_vent,
        hourly_vasopressor_rates.rate_epinephrine,
        hourly_vasopressor_rates.rate_norepinephrine,
        hourly_vasopressor_rates.rate_dopamine,
        hourly_vasopressor_rates.rate_dobutamine,
        hourly_mbp.meanbp_min,
        hourly_gcs.gcs_min,
        hourly_urine_output.uo_24hr,
        hourly_bilirubin.bilirubin_max,
        hourly_creatinine.creatinine_max,
        hourly_platelets.platelet_min
    FROM icustay_hours
    LEFT JOIN hourly_mbp
        ON icustay_hours.stay_id = hourly_mbp.stay_id AND icustay_hours.hr = hourly_mbp.hr
    LEFT JOIN hourly_gcs
        ON icustay_hours.stay_id = hourly_gcs.stay_id AND icustay_hours.hr = hourly_gcs.hr
    LEFT JOIN hourly_bilirubin
        ON icustay_hours.stay_id = hourly_bilirubin.stay_id AND icustay_hours.hr = hourly_bilirubin.hr
    LEFT JOIN hourly_creatinine
        ON icustay_hours.stay_id = hourly_creatinine.stay_id AND icustay_hours.hr = hourly_creatinine.hr
    LEFT JOIN hourly_platelets
        ON icustay_hours.stay_id = hourly_platelets.stay_id AND icustay_hours.hr = hourly_platelets.hr
    LEFT JOIN hourly_pao2fio2
        ON icustay_hours.stay_id = hourly_pao2fio2.stay_id AND icustay_hours.hr = hourly_pao2fio2.hr
    LEFT JOIN hourly_urine_output
        ON icustay_hours.stay_id = hourly_urine_output.stay_id AND icustay_hours.hr = hourly_urine_output.hr
    LEFT JOIN hourly_vasopressor_rates
        ON icustay_hours.stay_id = hourly_vasopressor_rates.stay_id
        AND icustay_hours.hr = hourly_vasopressor_rates.hr

),

hourly_scores AS (

    -- Organ scores of the hour alone; NULL when the hour has no data for that organ.
    SELECT
        hourly_components.*,
        -- respiration: as mimic-code's sofa.sql, ventilated ratios under 300 and 400 score 2 and 1
        {{ sofa_respiration_score('pao2fio2ratio_vent', 'pao2fio2ratio_novent', vent_ratios_score_low_points=true) }} AS respiration,
        {{ sofa_coagulation_score('platelet_min') }} AS coagulation,
        {{ sofa_liver_score('bilirubin_max') }} AS liver,
        {{ sofa_cardiovascular_score('meanbp_min') }} AS cardiovascular,
        {{ sofa_cns_score('gcs_min') }} AS cns,
        {{ sofa_renal_score('creatinine_max', 'uo_24hr') }} AS renal
    FROM hourly_components

),

rolling_24h_scores AS (

    -- Worst score of each organ over this hour and the 23 rows before it (hours before
    -- ICU admission included); an organ without data in the window scores 0.
    SELECT
        hourly_scores.*,
        COALESCE(MAX(respiration) OVER last_24_hours, 0) AS respiration_24hours,
        COALESCE(MAX(coagulation) OVER last_24_hours, 0) AS coagulation_24hours,
        COALESCE(MAX(liver) OVER last_24_hours, 0) AS liver_24hours,
        COALESCE(MAX(cardiovascular) OVER last_24_hours, 0) AS cardiovascular_24hours,
        COALESCE(MAX(cns) OVER last_24_hours, 0) AS cns_24hours,
        COALESCE(MAX(renal) OVER last_24_hours, 0) AS renal_24hours
    FROM hourly_scores
    WINDOW last_24_hours AS (PARTITION BY stay_id ORDER BY hr ROWS BETWEEN 23 PRECEDING AND CURRENT ROW)

),

final AS (

    SELECT
        stay_id,
        hr,
        starttime,
        endtime,
        pao2fio2ratio_novent,
        pao2fio2ratio_vent,
        rate_epinephrine,
        rate_norepinephrine,
        rate_dopamine,
        rate_dobutamine,
        meanbp_min,
        gcs_min,
        uo_24hr,
        bilirubin_max,
        creatinine_max,
        platelet_min,
        respiration,
        coagulation,
        liver,
        cardiovascular,
        cns,
        renal,
        respiration_24hours,
        coagulation_24hours,
        liver_24hours,
        cardiovascular_24hours,
        cns_24hours,
        renal_24hours,
        respiration_24hours + coagulation_24hours + liver_24hours
        + cardiovascular_24hours + cns_24hours + renal_24hours AS sofa_24hours
    FROM rolling_24h_scores
    WHERE hr >= 0

)

SELECT * FROM final
