"""Generate one synthetic MIMIC-IV patient: admissions, ICU stays and all their events.

Each patient is drawn from its own random generator ``default_rng([seed, i])``,
so its rows depend only on the seed and its index, never on chunking or on
other patients. Scenario-critical values (the SOFA level of a graded organ, the
KDIGO path, the ventilation statuses, the culture/antibiotic ordering) are
planted deterministically inside their band; the generator only jitters them
within it.

This module only keeps the order: which clinical domain (``domains/``) writes when,
and which data family a scenario leaves out. The order is the order of draws from
the patient's stream, so moving a call changes every value after it; a domain
added at the end of a stay or a patient leaves all earlier rows as they were.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv.buffers import TableBuffer
from m4agent.data.synth.mimic_iv.context import DAY, Counters, IcuStay, IdBlocks, Patient, midnight
from m4agent.data.synth.mimic_iv.domains import (
    chart_errors,
    crrt,
    diagnoses,
    gases,
    gcs,
    infection,
    infusions,
    labs,
    outputs,
    prescriptions,
    procedures,
    services,
    stays,
    ventilation,
    vitals,
    weights,
)
from m4agent.data.synth.mimic_iv.queues import ChartQueue, LabQueue
from m4agent.data.synth.mimic_iv.scenarios import Scenario, scenario_for

__all__ = ["Counters", "PatientFactory"]


class PatientFactory:
    """Turns patient indices into rows of every MIMIC-IV table."""

    def __init__(self, buffers: dict[str, TableBuffer], patients: int, seed: int, counters: Counters) -> None:
        self.tables = buffers
        self.seed = seed
        self.counters = counters
        self.blocks = IdBlocks.for_patients(max(patients, 1))

    def add_patient(self, index: int) -> None:
        rng = np.random.default_rng([self.seed, index])
        scen, grade = scenario_for(index)
        variant = int(rng.integers(0, 1000))
        subject_id = self.blocks.subject_id(rng, index)
        gender = "F" if rng.random() < 0.45 else "M"
        anchor_age = int(min(91, max(18, round(rng.normal(64, 16)))))
        if grade == 4 and scen.name in ("neuro", "aki_oliguria"):
            anchor_age = 91  # older than 89, shifted to 91 as MIMIC does
        if scen.name == "short_stay" and grade == 0:
            anchor_age = 19
        anchor_year = int(rng.integers(2110, 2200))
        group = cat.ANCHOR_YEAR_GROUPS[int(rng.integers(0, len(cat.ANCHOR_YEAR_GROUPS)))]
        icd_version = 9 if group in cat.ANCHOR_YEAR_GROUPS[:2] or (group == "2014 - 2016" and rng.random() < 0.5) else 10
        patient = Patient(rng=rng, index=index, scen=scen, grade=grade, variant=variant, subject_id=subject_id,
                          icd_version=icd_version, blocks=self.blocks, tables=self.tables, counters=self.counters)
        lab_queue = LabQueue(patient)
        missing = _missing_family(scen, grade)
        t = _year_start(anchor_year) + int(rng.integers(0, 2 * 365)) * DAY + patient.minutes(0, 1440)
        dod = None
        hadm_slot = 0
        if scen.prior_admission or (grade in (1, 3) and scen.name in ("elective_surgery", "liver_failure")):
            end = _admission(patient, lab_queue, missing, t, hadm_slot, index_admission=False, dies=False)
            hadm_slot += 1
            t = end + int(rng.integers(20, 120)) * DAY
        died = scen.name in ("sepsis_shock", "liver_failure") and grade == 4
        death = _admission(patient, lab_queue, missing, t, hadm_slot, index_admission=True, dies=died)
        if died:
            dod = midnight(death)
        elif rng.random() < 0.1:
            dod = midnight(death + int(rng.integers(30, 900)) * DAY)
        self.tables["patients"].add(1, subject_id=subject_id, gender=gender, anchor_age=anchor_age,
                                    anchor_year=anchor_year, anchor_year_group=group, dod=dod)
        lab_queue.flush()


def _admission(patient: Patient, lab_queue: LabQueue, missing: str | None, admittime: int, slot: int,
               index_admission: bool, dies: bool) -> int:
    """Write one hospital admission and its ICU stays; returns its discharge (or death) time."""
    adm = stays.admit(patient, admittime, slot, index_admission, dies)
    services.add_services(patient, adm)
    diagnoses.add_diagnoses(patient, adm.hadm_id, index_admission)
    base_cr = None if missing == "labs" else labs.ward_labs(patient, lab_queue, adm)
    if index_admission and missing != "micro":
        infection.add_infection(patient, adm)
    prescriptions.add_prescriptions(patient, adm)
    for st in adm.stays:
        _icu_stay(patient, st, lab_queue, missing, base_cr)
    return adm.dischtime


def _icu_stay(patient: Patient, st: IcuStay, lab_queue: LabQueue, missing: str | None, base_cr: float | None) -> None:
    """Write the events of one ICU stay; ``base_cr`` is the admission's creatinine baseline (None: no labs)."""
    st.vent_until = ventilation.ventilation_end(patient, st)
    chart = ChartQueue(patient, st)
    if missing != "chart":
        vitals.chart_vitals(patient, st, chart, hr_only=missing == "vitals")
        if missing != "vitals":
            gcs.chart_gcs(patient, st, chart)
            ventilation.chart_respiratory(patient, st, chart)
        if missing != "weight":
            weights.chart_weights(patient, st, chart)
        if missing != "vitals":
            chart_errors.chart_errors(patient, st, chart)
        if patient.scen.aki == "crrt":
            crrt.chart_crrt(patient, st, chart)
    if base_cr is not None:
        profile = labs.stay_profile(patient)
        labs.icu_labs(patient, st, lab_queue, profile, base_cr)
        gases.blood_gases(patient, st, lab_queue, profile)
    if missing != "uo":
        outputs.add_outputs(patient, st)
    infusions.add_infusions(patient, st)
    procedures.add_procedures(patient, st)
    chart.flush()


def _missing_family(scen: Scenario, grade: int) -> str | None:
    """The data family the patient lacks: all charting, or by grade its labs, urine output, weights,
    vital signs (all but the heart rate) or microbiology and antibiotics; None when complete."""
    if scen.missing == "chart":
        return "chart"
    if scen.missing == "graded":
        return ("labs", "uo", "weight", "vitals", "micro")[grade]
    return None


def _year_start(year: int) -> int:
    return (dt.date(year, 1, 1) - dt.date(1970, 1, 1)).days * DAY
