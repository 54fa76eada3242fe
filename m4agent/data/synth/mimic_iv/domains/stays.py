"""The course of a hospital admission: admission, emergency department, wards, ICU stays, discharge.

``admit`` writes the ``admissions``, ``transfers`` and ``icustays`` rows of one admission and
returns it with its ICU stays, whose times, weight and organ levels every ICU domain reads.
The pre-ICU length of stay cycles through every OASIS band; an ICU stay's recorded times carry
seconds (``clock.py``) while its events are drawn on the minute clock.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv import clock
from m4agent.data.synth.mimic_iv.context import DAY, HOUR, MIN, Admission, IcuStay, Patient, midnight
from m4agent.data.synth.mimic_iv.scenarios import organ_levels

# (transfer_id or None to draw one when written, eventtype, careunit, intime, outtime)
_Transfer = tuple[int | None, str, str | None, int, int | None]


def admit(patient: Patient, admittime: int, slot: int, index_admission: bool, dies: bool) -> Admission:
    """Write one hospital admission (the ``slot``-th of the patient) and its ICU stays."""
    rng, scen = patient.rng, patient.scen
    hadm_id = patient.hadm_id(slot)
    elective = scen.admission == "elective" and index_admission
    if elective:
        admission_type = "ELECTIVE" if patient.grade != 2 else "SURGICAL SAME DAY ADMISSION"
        location = "PHYSICIAN REFERRAL"
        admittime = midnight(admittime) + 6 * HOUR + patient.minutes(0, 90)
    else:
        admission_type = ("EW EMER.", "URGENT", "DIRECT EMER.", "OBSERVATION ADMIT", "EU OBSERVATION")[
            (patient.index + slot) % 5]
        location = ("EMERGENCY ROOM", "TRANSFER FROM HOSPITAL", "WALK-IN/SELF REFERRAL", "EMERGENCY ROOM",
                    "PHYSICIAN REFERRAL")[(patient.index + slot) % 5]
    has_ed = location in ("EMERGENCY ROOM", "WALK-IN/SELF REFERRAL") and not elective
    edregtime = admittime - patient.minutes(120, 400) if has_ed else None
    transfers: list[_Transfer] = []
    if has_ed:
        transfers.append((None, "ED", "Emergency Department", edregtime, admittime))
    stays: list[IcuStay] = []
    # an earlier admission is a ward stay, or (readmission scenario, grades 3-4) an ICU stay of its own
    n_icu = scen.icu_stays if index_admission else int(scen.name == "readmission" and patient.grade >= 3)
    if n_icu:
        # pre-ICU length of stay covers every OASIS band: <10 min, <5 h, <24 h, <13 d, >13 d
        pre = (patient.minutes(2, 9), patient.minutes(60, 280), patient.minutes(400, 1400),
               int(rng.integers(2, 11)) * DAY + patient.minutes(0, 600),
               int(rng.integers(14, 20)) * DAY)[(patient.index // 3 + slot) % 5]
        if elective:
            pre = patient.minutes(240, 420)
        if scen.aki != "none":  # through the ED, so the outpatient creatinine is within 7 days
            pre = patient.minutes(60, 280)
        if scen.name == "short_stay":
            pre = patient.minutes(2, 9) if patient.grade % 2 == 0 else patient.minutes(60, 280)
        t = admittime + pre
        if pre > 30 * MIN:
            ward = "Surgery" if elective else cat.WARD_CAREUNITS[patient.variant % len(cat.WARD_CAREUNITS)]
            transfers.append((None, "admit", "PACU" if elective else ward, admittime, t))
        for k in range(n_icu):
            los = rng.uniform(*scen.los_h) * HOUR if k == 0 else rng.uniform(20, 60) * HOUR
            los = int(los // MIN) * MIN
            careunit = _careunit(patient)
            transfer_id = patient.transfer_id()
            first = k == 0 and index_admission
            stay = IcuStay(patient.subject_id, hadm_id, transfer_id, t, t + los, careunit, first,
                           weight=round(float(np.clip(rng.normal(80, 18), 42, 180)), 1))
            stay.levels = organ_levels(scen, patient.grade, patient.variant) if first else organ_levels(scen, 0, 0)
            inpatient = [x for x in transfers if x[1] != "ED"]
            transfers.append((transfer_id, "transfer" if inpatient else "admit", careunit, t, t + los))
            stays.append(stay)
            t = t + los
            gap = int(rng.integers(1, 4)) * DAY + patient.minutes(0, 600)
            ward = cat.WARD_CAREUNITS[(patient.variant + k) % len(cat.WARD_CAREUNITS)]
            if dies and k == n_icu - 1:
                gap = 0
            else:
                transfers.append((None, "transfer", ward, t, t + gap))
            t = t + gap
        dischtime = t
        for k, stay in enumerate(stays):
            stay.in_seconds, stay.out_seconds = clock.stay_seconds(
                stay.stay_id, closes_admission=dies and k == n_icu - 1)
        transfers = _record_stay_seconds(transfers, stays)
    else:
        dischtime = admittime + int(rng.integers(2, 7)) * DAY + patient.minutes(0, 600)
        transfers.append((None, "admit", cat.WARD_CAREUNITS[patient.variant % len(cat.WARD_CAREUNITS)],
                          admittime, dischtime))
    deathtime = dischtime if dies else None
    discharge_location = "DIED" if dies else ("HOME", "HOME HEALTH CARE", "SKILLED NURSING FACILITY", "REHAB",
                                              "HOSPICE")[patient.variant % 5]
    transfers.append((None, "discharge", None, dischtime, None))
    patient.tables["admissions"].add(
        1, subject_id=patient.subject_id, hadm_id=hadm_id, admittime=admittime, dischtime=dischtime,
        deathtime=deathtime, admission_type=admission_type,
        admit_provider_id=f"P{10000 + patient.variant * 7 % 89999:05d}"[:6],
        admission_location=location, discharge_location=discharge_location,
        insurance=("Medicare", "Private", "Medicaid", "Other")[patient.variant % 4],
        language=("English", "English", "Spanish", "Chinese", "Other")[patient.variant % 5],
        marital_status=("MARRIED", "SINGLE", "WIDOWED", "DIVORCED", None)[patient.variant % 5],
        race=("WHITE", "BLACK/AFRICAN AMERICAN", "HISPANIC/LATINO - PUERTO RICAN", "ASIAN", "WHITE",
              "OTHER", "UNKNOWN")[patient.variant % 7],
        edregtime=edregtime, edouttime=admittime if has_ed else None,
        hospital_expire_flag=1 if dies else 0)
    for transfer_id, eventtype, careunit, intime, outtime in transfers:
        patient.tables["transfers"].add(
            1, subject_id=patient.subject_id, hadm_id=hadm_id,
            transfer_id=transfer_id if transfer_id is not None else patient.transfer_id(),
            eventtype=eventtype, careunit=careunit, intime=intime, outtime=outtime)
    for st in stays:
        patient.tables["icustays"].add(1, subject_id=st.subject_id, hadm_id=st.hadm_id, stay_id=st.stay_id,
                                       first_careunit=st.careunit, last_careunit=st.careunit,
                                       intime=st.recorded_intime, outtime=st.recorded_outtime,
                                       los=(st.recorded_outtime - st.recorded_intime) / DAY)
    return Admission(hadm_id, admittime, dischtime, elective, stays)


def _careunit(patient: Patient) -> str:
    """The ICU of the scenario (surgical, neuro, cardiac, trauma) or, for the others, a medical one."""
    name = patient.scen.name
    if name in ("elective_surgery",):
        return cat.ICU_CAREUNITS[3] if patient.grade % 2 else cat.ICU_CAREUNITS[1]
    if name == "neuro":
        return cat.ICU_CAREUNITS[5]
    if name == "cardiogenic":
        return cat.ICU_CAREUNITS[4]
    if name == "tracheostomy":
        return cat.ICU_CAREUNITS[6]
    return cat.ICU_CAREUNITS[(0, 2)[patient.variant % 2]]


def _record_stay_seconds(transfers: list[_Transfer], stays: list[IcuStay]) -> list[_Transfer]:
    """Transfers with each ICU stay's minute-clock intime and outtime replaced by its recorded one
    (the ward stays around an ICU stay begin and end when it does)."""
    recorded = {}
    for stay in stays:
        recorded[stay.intime] = stay.recorded_intime
        recorded[stay.outtime] = stay.recorded_outtime
    return [(tid, kind, unit, recorded.get(start, start), None if end is None else recorded.get(end, end))
            for tid, kind, unit, start, end in transfers]
