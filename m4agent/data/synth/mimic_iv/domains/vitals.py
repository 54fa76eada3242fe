"""Vital signs of an ICU stay: heart rate, blood pressure, respiratory rate, SpO2, temperature, rhythm, glucose.

Charted hourly (temperature every 4 hours, fingerstick glucose every 6). On the first stay one
heart rate, respiratory rate and temperature each land in a SAPS II / OASIS / APS III band
chosen by the patient's index, and the MAP stays inside the range of the planted cardiovascular
SOFA level. Arterial lines chart their own items (with cuff pressures alongside) when the
scenario has them; temperature is in Fahrenheit or Celsius by stay.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv.context import IcuStay, Patient
from m4agent.data.synth.mimic_iv.queues import ChartQueue


def chart_vitals(patient: Patient, st: IcuStay, chart: ChartQueue, hr_only: bool) -> None:
    """Hourly vital signs of one stay; only the heart rate when ``hr_only`` (the vitals family missing)."""
    rng, scen, g = patient.rng, patient.scen, patient.grade
    lv = st.levels
    t = patient.grid(st, 1.0)
    t[-1] = max(t[-1], st.outtime - patient.minutes(2, 20))
    t[0] = st.intime + patient.minutes(1, 15)
    t = np.unique(t)
    n = t.size
    hr_base = 110 if scen.fever else 82
    hr = np.clip(rng.normal(hr_base, 9, n), 45, 170)
    if st.first and n > 6:
        k = int(rng.integers(2, min(n, 20)))
        hr[k] = (36, 165, 128, 112, 58)[(patient.index // 2) % 5]  # SAPS-II / OASIS heart-rate bands
    hr = np.round(hr)
    chart.add(220045, t, hr, uom="bpm")
    if st.first and g == 1:
        chart.add(220045, t[:2], hr[:2] + 4, uom="bpm")  # duplicate rows at one charttime
    if hr_only:
        return
    # blood pressure: MAP bounded by the cardiovascular level
    cardio = lv.get("cardio", 0)
    mbp = rng.normal(84 if cardio == 0 else 72, 7, n)
    if cardio == 0:
        mbp = np.clip(mbp, 71, 115)
    elif cardio == 1:
        mbp = np.clip(mbp, 62, 95)
        mbp[int(rng.integers(1, min(n, 20))) if n > 1 else 0] = rng.uniform(52, 66)
    else:
        mbp = np.clip(mbp, 55, 90)
    if st.first and scen.name == "medical_general" and g == 4:
        mbp[min(3, n - 1)] = 150.0  # OASIS high-MAP band
    mbp = np.round(mbp)
    pp = np.round(rng.uniform(35, 60, n))
    dbp = np.round(mbp - pp / 3)
    sbp = dbp + pp
    arterial = scen.vent in ("ett", "trach") or scen.vaso != "none" or scen.aki == "crrt"
    items = (220050, 220051, 220052) if arterial else (220179, 220180, 220181)
    if arterial and patient.variant % 3 == 0:
        items = (225309, 225310, 225312)
    chart.add(items[0], t, sbp, uom="mmHg")
    chart.add(items[1], t, dbp, uom="mmHg")
    chart.add(items[2], t, mbp, uom="mmHg")
    if arterial:  # cuff pressures every 4 h alongside
        sel = slice(0, None, 4)
        chart.add(220179, t[sel], sbp[sel] + 4, uom="mmHg")
        chart.add(220181, t[sel], mbp[sel] + 2, uom="mmHg")
    # respiratory rate and SpO2
    rr_base = {"niv": 28, "ett": 18}.get(scen.vent, 24 if scen.fever else 17)
    rr = np.round(np.clip(rng.normal(rr_base, 3, n), 8, 50))
    if st.first and n > 8:
        rr[int(rng.integers(2, min(n, 20)))] = (5, 46, 33, 24, 11)[(patient.index // 3) % 5]
    chart.add(220210 if scen.vent != "ett" else 224690, t, rr, uom="insp/min")
    spo2 = np.round(np.clip(rng.normal(95, 2.5, n), 82, 100))
    chart.add(220277, t, spo2, uom="%")
    # temperature every 4 h, in Fahrenheit or Celsius depending on the stay
    tt = t[::4]
    m = tt.size
    temp_c = rng.normal(38.6 if scen.fever else 36.9, 0.4, m)
    if st.first and m > 1:
        temp_c[1] = (34.5, 39.9, 35.6, 40.3, 36.2)[(patient.index // 4) % 5] if scen.fever or g == 4 else temp_c[1]
    if scen.name == "neuro" and g == 3 and m > 2:
        temp_c[2] = 32.6  # cooled after arrest
    temp_c = np.round(temp_c, 1)
    if patient.variant % 2:
        chart.add(223761, tt, np.round(temp_c * 1.8 + 32, 1), uom="°F")
    else:
        chart.add(223762, tt, temp_c, uom="°C")
    chart.add(224642, tt, None, np.array(["Oral", "Axillary", "Rectal", "Blood"], dtype=object)[
        np.arange(m) % (1 + patient.variant % 4)])
    # rhythm and glucose
    chart.add(220048, tt, None, "SR (Sinus Rhythm)" if not scen.fever else "ST (Sinus Tachycardia) ")
    tg = t[::6]
    chart.add(225664, tg, np.round(rng.uniform(90, 220, tg.size)), uom="mg/dL")
