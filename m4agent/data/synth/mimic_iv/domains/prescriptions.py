"""The non-antibiotic prescriptions of an admission (``prescriptions``).

Antibiotics are written by ``infection``, where their time against the cultures is planted;
these ward drugs give the antibiotic concept rows it must not pick.
"""

from __future__ import annotations

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv.context import DAY, Admission, Patient


def add_prescriptions(patient: Patient, adm: Admission) -> None:
    """Two to five distinct ward drugs started during the admission."""
    hadm_id, admittime, dischtime = adm.hadm_id, adm.admittime, adm.dischtime
    rng = patient.rng
    k = int(rng.integers(2, 6))
    picks = rng.choice(len(cat.OTHER_DRUGS), size=k, replace=False)
    for p in picks:
        drug, route, unit, form = cat.OTHER_DRUGS[int(p)]
        start = admittime + patient.minutes(30, 1440)
        patient.tables["prescriptions"].add(
            1, subject_id=patient.subject_id, hadm_id=hadm_id, pharmacy_id=patient.next_id("pharmacy_id"),
            poe_id=f"{patient.subject_id}-{patient.next_id('orderid')}", poe_seq=1, starttime=start,
            stoptime=min(dischtime, start + int(rng.integers(1, 6)) * DAY), drug_type="MAIN", drug=drug,
            formulary_drug_cd=drug[:6].upper().replace(" ", ""), gsn=f"{int(rng.integers(1000, 99999)):06d}",
            ndc=f"{int(rng.integers(10**9, 10**10)):011d}", prod_strength=f"10{unit}", form_rx=None,
            dose_val_rx=str(int(rng.integers(1, 50))), dose_unit_rx=unit, form_val_disp="1",
            form_unit_disp=form, doses_per_24_hrs=float(rng.integers(1, 4)), route=route)
