"""Procedures of an ICU stay (``procedureevents``, ``datetimeevents``).

Invasive ventilation with its intubation, non-invasive ventilation, CRRT with its dialysis
catheter, and the arterial line of ventilated or vasopressor stays, with the line's insertion
date. Each follows what the other domains planned for the stay (its ventilation end, the CRRT
window of the first 60 hours).
"""

from __future__ import annotations

from m4agent.data.synth.mimic_iv.context import HOUR, MIN, IcuStay, Patient, midnight


def add_procedures(patient: Patient, st: IcuStay) -> None:
    """Ventilation and intubation, NIV, dialysis, invasive lines, and the date a line was placed."""
    scen = patient.scen
    rows: list[tuple[int, int, int, float, str, str]] = []
    if st.vent_until:
        rows.append((225792, st.intime - 30 * MIN, st.vent_until, (st.vent_until - st.intime) / MIN + 30, "min",
                     "Ventilation"))
        rows.append((224385, st.intime - 30 * MIN, st.intime - 29 * MIN, 1.0, "None", "Procedures"))
    if scen.vent == "niv":
        rows.append((225794, st.intime + 15 * MIN, st.intime + 11 * HOUR, 645.0, "min", "Ventilation"))
    if scen.aki == "crrt" and st.first:
        end = min(st.outtime, st.intime + 60 * HOUR)
        rows.append((225802, st.intime + 2 * HOUR, end, (end - st.intime) / MIN - 120, "min", "Dialysis"))
        rows.append((224270, st.intime + HOUR, st.outtime, (st.outtime - st.intime) / MIN - 60, "min",
                     "Access Lines - Invasive"))
    if scen.vent in ("ett", "trach") or scen.vaso != "none":
        rows.append((225752, st.intime - 20 * MIN, st.outtime, (st.outtime - st.intime) / MIN + 20, "min",
                     "Access Lines - Invasive"))
        patient.tables["datetimeevents"].add(
            1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=44444,
            charttime=st.intime + 10 * MIN, storetime=st.intime + 12 * MIN, itemid=224288,
            value=midnight(st.intime - 20 * MIN), valueuom="Date", warning=0)
    for itemid, start, end, value, uom, category in rows:
        patient.tables["procedureevents"].add(
            1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id, caregiver_id=55555,
            starttime=start, endtime=end, storetime=end + 10 * MIN, itemid=itemid, value=value, valueuom=uom,
            location=None, locationcategory=None, orderid=patient.next_id("orderid"), linkorderid=None,
            ordercategoryname=category, ordercategorydescription="Task", patientweight=st.weight,
            isopenbag=0, continueinnextdept=0, statusdescription="FinishedRunning",
            originalamount=value, originalrate=0.0)
