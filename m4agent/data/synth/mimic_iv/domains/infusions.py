"""Infusions of an ICU stay (``inputevents``, ``ingredientevents``): vasopressors, citrate, sedation, fluids.

Vasopressor orders are rate segments of one linkorderid, escalated and weaned so that the
planted cardiovascular SOFA level is reached, and charted in every unit the vasoactive concepts
convert (mcg/kg/min, mg/kg/min, mcg/min with and without a weight, units/min and units/hour),
with an epinephrine push (an amount without a rate) and an outlier dose per minute read as per
kilogram. Fluid boluses carry their ingredient rows.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv.context import HOUR, MIN, IcuStay, Patient


def _infusion(patient: Patient, st: IcuStay, itemid: int, start: int, rates: list[float], seg_h: list[float], rateuom: str,
              amountuom: str = "mg", weight: float | None = -1.0, category: str = "Continuous Med") -> int:
    """Consecutive rate segments of one order (one linkorderid); returns the end time."""
    rng = patient.rng
    link = patient.next_id("orderid")
    t = start
    w = st.weight if weight == -1.0 else weight
    for k, (rate, hours) in enumerate(zip(rates, seg_h, strict=True)):
        end = t + int(hours * HOUR)
        per_min = rate * (w or 80.0) if "/kg/" in rateuom else rate
        if rateuom.endswith("/hour"):
            per_min = rate / 60.0
        mult = 1000.0 if rateuom.startswith("mcg") else 1.0
        amount = round(per_min * hours * 60 / mult, 4)
        orderid = link if k == 0 else patient.next_id("orderid")
        patient.tables["inputevents"].add(
            1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id,
            caregiver_id=int(rng.integers(10000, 99999)), starttime=t, endtime=end,
            storetime=t + patient.minutes(1, 30), itemid=itemid, amount=amount, amountuom=amountuom, rate=rate,
            rateuom=rateuom, orderid=orderid, linkorderid=link, ordercategoryname="01-Drips",
            secondaryordercategoryname="Additive", ordercomponenttypedescription="Main order parameter",
            ordercategorydescription=category, patientweight=np.nan if w is None else w,
            totalamount=250.0, totalamountuom="mL", isopenbag=0, continueinnextdept=0,
            statusdescription="FinishedRunning" if k == len(rates) - 1 else "ChangeDose/Rate",
            originalamount=amount, originalrate=rate)
        t = end
    return t


def add_infusions(patient: Patient, st: IcuStay) -> None:
    """Vasopressors and inotropes, CRRT citrate, sedation while intubated, and fluid boluses of one stay."""
    rng, scen, g = patient.rng, patient.scen, patient.grade
    lv = st.levels
    t0 = st.intime + patient.minutes(40, 100)
    if scen.vaso == "escalating" and st.first:
        if lv["cardio"] == 4:
            if (patient.index // 16) % 3 == 1:  # a norepinephrine row in mg/kg/min (x1000)
                end = _infusion(patient, st, 221906, t0, [0.00008, 0.00018], [2, 3], "mg/kg/min")
                end = _infusion(patient, st, 221906, end, [0.3, 0.2, 0.1], [4, 6, 8], "mcg/kg/min")
            else:
                end = _infusion(patient, st, 221906, t0, [0.05, 0.12, 0.25, 0.4, 0.2, 0.08], [2, 2, 3, 4, 6, 8],
                                "mcg/kg/min")
            _infusion(patient, st, 222315, t0 + 4 * HOUR, [2.4, 2.4], [6, 10], "units/hour", "units")
            if g % 2 == 0:
                _infusion(patient, st, 221289, t0 + 6 * HOUR, [0.05, 0.1], [3, 4], "mcg/kg/min")
            if g == 4:
                _infusion(patient, st, 222315, t0 + 20 * HOUR, [0.04], [4], "units/min", "units")
        else:
            _infusion(patient, st, 221906, t0, [0.03, 0.06, 0.09, 0.05], [3, 4, 6, 8], "mcg/kg/min")
            _infusion(patient, st, 221749, t0 + 2 * HOUR, [0.5, 1.0], [3, 3], "mcg/kg/min")
    if scen.vaso == "escalating" and st.first:
        if g == 1:  # an epinephrine push: an amount without a rate
            t = t0 + 30 * MIN
            patient.tables["inputevents"].add(
                1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=22222,
                starttime=t, endtime=t + MIN, storetime=t + 5 * MIN, itemid=221289, amount=1.0, amountuom="mg",
                orderid=patient.next_id("orderid"), ordercategoryname="11-Prophylaxis (IV)",
                ordercomponenttypedescription="Main order parameter", ordercategorydescription="Drug Push",
                patientweight=st.weight, isopenbag=0, continueinnextdept=0, statusdescription="FinishedRunning",
                originalamount=1.0, originalrate=0.0)
        if g == 3:  # norepinephrine charted per minute: read as per kilogram, an outlier dose
            _infusion(patient, st, 221906, t0 + 30 * HOUR, [8.0], [2], "mcg/min")
    if scen.vaso == "cardiogenic" and st.first:
        if g == 0:
            _infusion(patient, st, 221986, t0, [0.375, 0.5], [8, 12], "mcg/kg/min")
        elif g == 2:
            _infusion(patient, st, 221653, t0, [2.5, 5.0], [6, 12], "mcg/kg/min")
            _infusion(patient, st, 221662, t0 + HOUR, [3.0], [5], "mcg/kg/min")
        elif g == 3:
            _infusion(patient, st, 221662, t0, [5.0, 8.0, 12.0], [3, 4, 6], "mcg/kg/min")
            # phenylephrine charted per minute without a weight: its dose cannot be normalised
            _infusion(patient, st, 221749, t0 + HOUR, [60.0, 100.0], [3, 3], "mcg/min", weight=None)
        elif g == 4:
            _infusion(patient, st, 221289, t0, [0.08, 0.15, 0.2], [3, 4, 4], "mcg/kg/min")
            _infusion(patient, st, 222315, t0 + HOUR, [0.03, 0.04], [4, 4], "units/min", "units")
            _infusion(patient, st, 221662, t0 + 2 * HOUR, [18.0], [3], "mcg/kg/min")
    if scen.aki == "crrt" and st.first:
        for k in range(3):
            _infusion(patient, st, 227536, st.intime + (3 + 8 * k) * HOUR, [10.0], [8], "mEq/hour", "mEq",
                      category="Continuous IV")
    if scen.vent == "ett" and st.vent_until:
        _infusion(patient, st, 222168, st.intime, [30.0, 40.0], [6, 12], "mcg/kg/min")
    # fluid boluses with their ingredient rows
    for _ in range(int(rng.integers(1, 3))):
        t = st.intime + patient.minutes(10, 600)
        if t >= st.outtime:
            continue
        orderid = patient.next_id("orderid")
        amount = float((500, 1000)[int(rng.integers(0, 2))])
        patient.tables["inputevents"].add(
            1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=33333,
            starttime=t, endtime=t + 30 * MIN, storetime=t + 35 * MIN, itemid=225158, amount=amount,
            amountuom="mL", rate=amount * 2, rateuom="mL/hour", orderid=orderid, linkorderid=orderid,
            ordercategoryname="02-Fluids (Crystalloids)", secondaryordercategoryname=None,
            ordercomponenttypedescription="Main order parameter", ordercategorydescription="Bolus",
            patientweight=st.weight, totalamount=amount, totalamountuom="mL", isopenbag=0,
            continueinnextdept=0, statusdescription="FinishedRunning", originalamount=amount,
            originalrate=amount * 2)
        patient.tables["ingredientevents"].add(
            1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=33333,
            starttime=t, endtime=t + 30 * MIN, storetime=t + 35 * MIN, itemid=220490, amount=amount,
            amountuom="mL", rate=amount * 2, rateuom="mL/hour", orderid=orderid, linkorderid=orderid,
            statusdescription="FinishedRunning", originalamount=0.0, originalrate=amount * 2)
