"""Output events of an ICU stay: urine (Foley, void or condom catheter), bladder irrigation, a chest tube.

Urine is charted hourly (every 4 hours for voids) at a rate the scenario's KDIGO path shapes:
oliguria or anuria between hours 6 and 40 for the urine-output path, little urine on CRRT, a
lower rate after 12 hours for the creatinine path. Irrigant in (subtracted from the volume out)
and chest-tube output (not urine) exercise the urine-output concept's item rules.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv.context import HOUR, MIN, IcuStay, Patient


def add_outputs(patient: Patient, st: IcuStay) -> None:
    """Urine output of one stay, with bladder irrigation and a chest tube where the scenario has them."""
    rng, scen, g = patient.rng, patient.scen, patient.grade
    void = scen.name in ("short_stay", "neuro") and g % 2 == 1
    t = patient.grid(st, 4.0 if void else 1.0, 1.0 if not void else 2.0)
    n = t.size
    if n == 0:
        return
    hours = (t - st.intime) / HOUR
    step = 4.0 if void else 1.0
    rate = np.clip(rng.normal(70, 20, n), 30, 180)  # mL/h
    if scen.aki == "uo" and st.first:
        # falling urine output: oliguria (about 0.1 mL/kg/h) from hour 6 to hour 40; anuria for some
        low = (hours >= 6) & (hours <= 40)
        rate = np.where(low, 0.0 if g in (2, 4) else rng.uniform(4, 12, n), np.where(hours < 6, 45.0, rate))
    if scen.aki == "crrt" and st.first:
        rate = rng.uniform(0, 15, n)
    if scen.aki == "creat" and st.first:
        rate = np.where(hours > 12, rng.uniform(25, 45, n), rate)
    vol = np.round(rate * step)
    item = 226560 if void else (226559 if patient.variant % 7 else 226561)
    patient.tables["outputevents"].add(
        n, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id,
        caregiver_id=rng.integers(10000, 99999, n), charttime=t, storetime=t + rng.integers(1, 60, n) * MIN,
        itemid=item, value=vol, valueuom="mL")
    if scen.name == "elective_surgery" and g in (1, 3):
        # bladder irrigation: irrigant in is subtracted from the combined volume out
        ti = t[::4]
        out = np.round(rng.uniform(600, 1200, ti.size))
        irrigant = np.round(out * rng.uniform(0.6, 0.8, ti.size))
        for itemid, vals in ((227489, out), (227488, irrigant)):
            patient.tables["outputevents"].add(
                ti.size, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=12345,
                charttime=ti, storetime=ti + 5 * MIN, itemid=itemid, value=vals, valueuom="mL")
    if scen.service.endswith("SURG") or scen.name == "elective_surgery":
        tc = t[::8]
        patient.tables["outputevents"].add(
            tc.size, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=23456,
            charttime=tc, storetime=tc + 5 * MIN, itemid=226588, value=np.round(rng.uniform(10, 80, tc.size)),
            valueuom="mL")
