"""Laboratory results of an admission: ward and outpatient labs, and the panels of each ICU stay.

The first ICU stay's worst first-day platelets, bilirubin and creatinine fall inside the band of
its planted SOFA level (the bands below); every other draw lies just on the healthy side of
that band, so the planted value is the worst of any first-day window. The creatinine
course follows the KDIGO path of the scenario from the baseline the ward labs drew. Results are
queued on the patient's ``LabQueue``.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv.context import DAY, HOUR, MIN, Admission, IcuStay, Patient
from m4agent.data.synth.mimic_iv.queues import LabQueue

# value bands per SOFA level 0-4
PLATELET_BANDS = ((160, 320), (105, 145), (55, 95), (22, 48), (5, 18))
BILI_BANDS = ((0.3, 1.1), (1.3, 1.9), (2.2, 5.8), (6.2, 11.5), (12.5, 25.0))
CREAT_BANDS = ((0.5, 1.1), (1.25, 1.9), (2.1, 3.4), (3.6, 4.9), (5.1, 8.0))


def ward_labs(patient: Patient, lab_queue: LabQueue, adm: Admission) -> float:
    """Ward and outpatient labs outside ICU stays; returns the creatinine baseline the ICU labs rise from."""
    hadm_id, admittime, dischtime, stays = adm.hadm_id, adm.admittime, adm.dischtime, adm.stays
    rng = patient.rng
    scen, g = patient.scen, patient.grade
    base_cr = round(rng.uniform(0.6, 1.0), 1)
    # outpatient creatinine before the admission: no hadm_id (it counts for KDIGO, not for the baseline)
    if scen.aki == "creat" or (scen.name in ("medical_general", "readmission") and g in (1, 2)):
        t_out = admittime - int(rng.integers(2, 5)) * DAY + patient.minutes(480, 720)
        if scen.aki != "creat":
            t_out = admittime - int(rng.integers(20, 200)) * DAY
        lab_queue.panel(None, t_out, [50912, 51006, 50983, 50971], [base_cr, 15.0, 139.0, 4.1], priority="ROUTINE")
    if not stays:
        t = admittime + patient.minutes(60, 300)
        while t < dischtime:
            cr = round(base_cr * rng.uniform(0.9, 1.6), 1)
            lab_queue.panel(hadm_id, t, [50912, 51006, 50983, 50971, 50882, 50931],
                            [cr, round(rng.uniform(8, 30)), round(rng.uniform(134, 144)),
                             round(rng.uniform(3.5, 5), 1), round(rng.uniform(21, 29)), round(rng.uniform(80, 180))],
                            priority="ROUTINE")
            lab_queue.panel(hadm_id, t, [51265, 51301, 51222, 51221],
                            [round(rng.uniform(150, 350)), round(rng.uniform(5, 11), 1),
                             round(rng.uniform(10, 15), 1), round(rng.uniform(30, 45), 1)], priority="ROUTINE")
            t += DAY
        return base_cr
    # daily ward labs before the ICU (ending a day before it, outside every first-day window)
    # and after the last ICU stay; chronic kidney disease keeps the creatinine high
    ward_cr = base_cr
    if scen.aki == "crrt" or (scen.name == "medical_general" and g >= 3):
        ward_cr = rng.uniform(2.4, 4.0)
    before = np.arange(admittime + 6 * HOUR, stays[0].intime - 26 * HOUR, DAY, dtype=np.int64)
    after = np.arange(stays[-1].outtime + patient.minutes(300, 900), dischtime, DAY, dtype=np.int64)
    times = np.concatenate([before, after])
    n = times.size
    lab_queue.series(hadm_id, times, [50912, 51006, 50983, 50971, 51265, 51301], np.column_stack([
        np.round(ward_cr * rng.uniform(0.9, 1.3, n), 1), np.round(rng.uniform(8, 30, n)),
        np.round(rng.uniform(134, 144, n)), np.round(rng.uniform(3.5, 5, n), 1),
        np.round(rng.uniform(150, 300, n)), np.round(rng.uniform(5, 11, n), 1)]).reshape(n, 6),
        priority="ROUTINE")
    return base_cr


def stay_profile(patient: Patient) -> dict[str, float]:
    """Per-stay typical values of the routine analytes and of the blood gas (before noise)."""
    rng, scen, g = patient.rng, patient.scen, patient.grade
    p = {
        "wbc": rng.uniform(5, 11), "hct": rng.uniform(28, 44), "k": rng.uniform(3.6, 4.9),
        "na": rng.uniform(135, 144), "hco3": rng.uniform(22, 29), "bun": rng.uniform(8, 24),
        "glucose": rng.uniform(85, 170), "albumin": rng.uniform(2.6, 4.3), "inr": rng.uniform(1.0, 1.3),
        "ph": 7.40, "pco2": 40.0, "lactate": rng.uniform(0.8, 1.8),
    }
    if scen.name == "sepsis_shock":
        p.update(wbc=(24, 16, 3.5, 21, 0.6)[g], hco3=(13, 17, 19, 14, 21)[g], lactate=rng.uniform(3, 8))
    if scen.aki in ("creat", "uo", "crrt"):
        p.update(k=(5.6, 4.4, 6.2, 2.8, 5.2)[g], bun=(45, 70, 95, 38, 120)[g], hco3=(17, 21, 14, 19, 16)[g])
    if scen.name == "liver_failure":
        p.update(na=(123, 128, 132, 121, 134)[g], inr=(1.6, 2.2, 2.8, 3.5, 4.4)[g], albumin=rng.uniform(1.6, 2.8))
    if scen.name == "neuro":
        p.update(na=(146, 149, 152, 141, 147)[g], glucose=(230, 120, 310, 95, 180)[g])
    if scen.name == "medical_general":
        p.update(wbc=(12, 0.7, 18, 22, 0.5)[g], glucose=(60, 400, 150, 250, 110)[g])
    if scen.name == "respiratory_niv":
        p.update(ph=(7.18, 7.26, 7.32, 7.22, 7.15)[g], pco2=(68, 60, 52, 72, 80)[g])
    if scen.name == "ventilated_ett":
        p.update(ph=(7.44, 7.48, 7.52, 7.28, 7.12)[g], pco2=(36, 31, 27, 52, 48)[g])
    if scen.name == "sepsis_shock":
        p.update(ph=(7.15, 7.22, 7.31, 7.18, 7.36)[g], pco2=(30, 34, 44, 28, 38)[g])
    if scen.name == "cardiogenic":
        p.update(ph=(7.46, 7.58, 7.62, 7.41, 7.38)[g], pco2=(33, 38, 22, 46, 41)[g])
    return p


def icu_labs(patient: Patient, st: IcuStay, lab_queue: LabQueue, p: dict[str, float], base_cr: float) -> None:
    """Chemistry, blood count, differential, coagulation and liver panels of one ICU stay, from its profile ``p``."""
    rng = patient.rng
    lv = st.levels
    start = st.intime - patient.minutes(60, 240)
    times = [start]
    t = st.intime + patient.minutes(300, 420)
    while t < st.outtime:
        times.append(t)
        t += 12 * HOUR if t - st.intime < 48 * HOUR else 24 * HOUR
    times_a = np.array(times, dtype=np.int64)
    # the worst value of the first day is drawn inside the ICU stay (hourly SOFA starts at intime)
    first_day = np.flatnonzero((times_a > st.intime) & (times_a - st.intime <= 22 * HOUR))
    if first_day.size == 0:
        first_day = np.array([0])
    worst = int(first_day[int(rng.integers(0, first_day.size))]) if st.first else -1
    creat = _creatinine_course(patient, st, times_a, base_cr, worst)
    n = times_a.size
    plt_band = PLATELET_BANDS[lv.get("coag", 0)]
    bili_band = BILI_BANDS[lv.get("liver", 0)]
    is_worst = np.arange(n) == worst
    plt = np.where(is_worst, rng.uniform(*plt_band, n), rng.uniform(plt_band[1], plt_band[1] * 1.4 + 20, n))
    bili = np.where(is_worst, rng.uniform(*bili_band, n), rng.uniform(bili_band[0] * 0.6, bili_band[0], n))
    if not st.first:
        plt, bili = rng.uniform(160, 300, n), rng.uniform(0.3, 1.0, n)

    def around(x: float, spread: float) -> np.ndarray:
        return x * rng.normal(1, spread, n)

    hct = around(p["hct"], 0.05)
    chem = np.column_stack([
        creat, np.round(around(p["bun"], 0.05)), np.round(around(p["na"], 0.01)), np.round(around(p["k"], 0.04), 1),
        np.round(around(p["hco3"], 0.04)), np.round(rng.uniform(96, 110, n)), np.round(rng.uniform(8, 20, n)),
        np.round(around(p["glucose"], 0.1)), np.round(rng.uniform(7.8, 9.8, n), 1),
        np.round(around(p["albumin"], 0.05), 1)])
    chem_items = [50912, 51006, 50983, 50971, 50882, 50902, 50868, 50931, 50893, 50862]
    chem[np.arange(n) % 2 == 1, -1] = np.nan  # albumin on every other draw
    lab_queue.series(st.hadm_id, times_a, chem_items, chem)
    cbc = np.column_stack([
        np.round(plt), np.round(around(p["wbc"], 0.1), 1), np.round(hct / 3, 1), np.round(hct, 1),
        np.round(rng.uniform(27, 33, n), 1), np.round(rng.uniform(31, 35, n), 1), np.round(rng.uniform(82, 98, n)),
        np.round(rng.uniform(2.8, 4.8, n), 2), np.round(rng.uniform(12, 17, n), 1)])
    lab_queue.series(st.hadm_id, times_a + 2 * MIN, [51265, 51301, 51222, 51221, 51248, 51249, 51250, 51279, 51277],
                     cbc)
    lab_queue.panel(st.hadm_id, int(times_a[0]) + 2 * MIN, [51144, 51146, 51200, 51244, 51254, 51256],
                    [float(rng.integers(0, 12)), 0.3, 1.1, round(rng.uniform(5, 30), 1), 6.0,
                     round(rng.uniform(60, 88), 1)])
    liver_draw = (np.arange(n) % 2 == 0) | is_worst  # coagulation and liver panels daily
    k = int(liver_draw.sum())
    inr = around(p["inr"], 0.05)[liver_draw]
    lab_queue.series(st.hadm_id, times_a[liver_draw] + 3 * MIN, [51237, 51274, 51275],
                     np.column_stack([np.round(inr, 1), np.round(inr * 11.5, 1), np.round(rng.uniform(26, 48, k), 1)]))
    lab_queue.series(st.hadm_id, times_a[liver_draw] + 3 * MIN, [50885, 50861, 50878, 50863],
                     np.column_stack([np.round(bili[liver_draw], 1), np.round(rng.uniform(10, 300, k)),
                                      np.round(rng.uniform(12, 400, k)), np.round(rng.uniform(40, 250, k))]))
    if patient.index % 9 == 0:  # results withheld or unreportable: text only, no valuenum
        lab_queue.panel(st.hadm_id, int(times_a[-1]) + 20 * MIN, [50912, 51265],
                        [None, None], ["___", "UNABLE TO REPORT"])
    if st.first and patient.scen.name == "sepsis_shock":
        lab_queue.panel(st.hadm_id, int(times[0]) + 5 * MIN, [50889, 51003], [round(rng.uniform(50, 250), 1), 0.04])


def _creatinine_course(patient: Patient, st: IcuStay, times: np.ndarray, base_cr: float, worst: int) -> list[float]:
    """Creatinine at ``times``: the KDIGO rise from the baseline, CRRT levels, or the renal band at the worst draw."""
    rng, scen = patient.rng, patient.scen
    hours = (times - st.intime) / HOUR
    if scen.aki == "creat" and st.first:
        # 1.4x on arrival, 3x the outpatient value by about a day, peaking in the second day
        factor = np.interp(hours, [-4, 8, 20, 34, 60, 120], [1.5, 2.2, 3.2, 3.7, 2.8, 1.8])
        return [round(float(base_cr * f), 1) for f in factor]
    if scen.aki == "crrt" and st.first:
        return [round(float(rng.uniform(5.2, 7.5)), 1) for _ in hours]
    band = CREAT_BANDS[st.levels.get("renal", 0)]
    out = []
    for k in range(hours.size):
        if k == worst:
            out.append(round(float(rng.uniform(*band)), 1))
        else:
            out.append(round(float(rng.uniform(max(0.4, band[0] * 0.8), band[0])), 1))
    return out
