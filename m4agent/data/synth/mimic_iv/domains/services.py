"""The hospital services of an admission (``services``).

The first service decides the admission type of SAPS II and the surgical status of OASIS, so
elective admissions cycle through surgical services (ORTHO included: surgical for OASIS, not
for SAPS II), and one scenario moves to surgery only after the first ICU day.
"""

from __future__ import annotations

from m4agent.data.synth.mimic_iv import clock
from m4agent.data.synth.mimic_iv.context import DAY, Admission, Patient


def add_services(patient: Patient, adm: Admission) -> None:
    """The service the patient is admitted under, and a change to surgery after day one in one scenario."""
    hadm_id, stays = adm.hadm_id, adm.stays
    scen, g = patient.scen, patient.grade
    first = scen.service
    if adm.elective:
        first = ("SURG", "ORTHO", "CSURG", "VSURG", "NSURG")[g]  # ORTHO: surgical for OASIS, not SAPS-II
    elif scen.name == "tracheostomy":
        first = "MED" if g % 2 else "TSURG"  # unscheduled surgical when TSURG
    rows = [(adm.admittime, None, first)]
    if stays and scen.name == "medical_general" and g == 3:
        rows.append((stays[0].intime + 2 * DAY, first, "SURG"))  # surgical only after day one
    for transfertime, prev, curr in rows:
        patient.tables["services"].add(1, subject_id=patient.subject_id, hadm_id=hadm_id,
                                       transfertime=transfertime + clock.service_seconds(hadm_id),
                                       prev_service=prev, curr_service=curr)
