"""Suspicion of infection: microbiology cultures and the antibiotics ordered around them.

The sepsis-3 concept pairs an antibiotic with a culture taken up to 72 hours before it or up
to 24 hours after it, so each scenario plants one ordering: culture then antibiotic,
antibiotic then culture, a culture with a chart date only, an antibiotic alone (prophylaxis)
or a culture alone; cultures are positive, negative, with a "negative" organism, or cancelled.
The index admission also gets an antibiotic row the concept must drop (topical, ophthalmic,
oral vancomycin, a desensitisation).
"""

from __future__ import annotations

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv.context import DAY, Admission, Patient, midnight


def _culture(patient: Patient, hadm_id: int, t: int, specimen: int, result: str, chartdate_only: bool = False) -> None:
    spec_itemid, spec_desc, test_itemid, test_name = cat.SPECIMENS[specimen]
    msid = patient.next_id("micro_specimen_id")
    charttime = None if chartdate_only else t
    rows: list[dict] = []
    if result == "positive":
        org_itemid, org_name = cat.ORGANISMS[(patient.variant + patient.grade) % len(cat.ORGANISMS)]
        for ab_itemid, ab_name in cat.SUSCEPTIBILITY[: 2 + patient.grade % 3]:
            rows.append(dict(org_itemid=org_itemid, org_name=org_name, isolate_num=1, quantity="MODERATE GROWTH",
                             ab_itemid=ab_itemid, ab_name=ab_name, dilution_text="<=1",
                             dilution_comparison="<=", dilution_value=1.0,
                             interpretation="R" if ab_itemid == 90004 else "S"))
    elif result in ("negative_org", "cancelled"):
        org_itemid, org_name = cat.NEGATIVE_ORGANISM if result == "negative_org" else cat.CANCELLED_ORGANISM
        rows.append(dict(org_itemid=org_itemid, org_name=org_name))
    else:
        rows.append(dict(comments="NO GROWTH."))
    for k, extra in enumerate(rows):
        patient.tables["microbiologyevents"].add(
            1, microevent_id=patient.next_id("microevent_id"), subject_id=patient.subject_id, hadm_id=hadm_id,
            micro_specimen_id=msid, chartdate=midnight(t), charttime=charttime, spec_itemid=spec_itemid,
            spec_type_desc=spec_desc, test_seq=1, storedate=midnight(t + 2 * DAY),
            storetime=t + 2 * DAY + patient.minutes(0, 600), test_itemid=test_itemid, test_name=test_name,
            order_provider_id=None if k else f"P{patient.variant:05d}", **extra)


def _antibiotic(patient: Patient, hadm_id: int, t: int, which: int, drug_type: str = "MAIN",
                override: tuple[str, str | None] | None = None) -> None:
    drug, route = override if override else cat.ANTIBIOTICS[which % len(cat.ANTIBIOTICS)]
    patient.tables["prescriptions"].add(
        1, subject_id=patient.subject_id, hadm_id=hadm_id, pharmacy_id=patient.next_id("pharmacy_id"),
        poe_id=f"{patient.subject_id}-{patient.next_id('orderid')}", poe_seq=1, starttime=t,
        stoptime=t + int(patient.rng.integers(1, 8)) * DAY, drug_type=drug_type, drug=drug,
        formulary_drug_cd=drug[:6].upper().replace(" ", ""), prod_strength="1 g Vial",
        form_rx=None, dose_val_rx="1", dose_unit_rx="g", form_val_disp="1", form_unit_disp="VIAL",
        doses_per_24_hrs=2.0, route=route)


def add_infection(patient: Patient, adm: Admission) -> None:
    """The cultures and antibiotics of an index admission, in the order its scenario (or grade) plants."""
    hadm_id, admittime, stays = adm.hadm_id, adm.admittime, adm.stays
    scen, g = patient.scen, patient.grade
    t0 = stays[0].intime if stays else admittime
    mode = scen.infection
    if mode == "graded":
        mode = ("abx_then_culture", "chartdate", "culture_then_abx", "abx_only", "culture_only")[g]
    if mode == "culture_then_abx":
        tc = t0 + patient.minutes(30, 90)
        _culture(patient, hadm_id, tc, 0, "positive" if g != 1 else "negative")
        _culture(patient, hadm_id, tc + patient.minutes(5, 30), 1, "negative")
        _antibiotic(patient, hadm_id, tc + patient.minutes(60, 600), patient.variant)
        _antibiotic(patient, hadm_id, tc + patient.minutes(60, 600), patient.variant + 1)
    elif mode == "abx_then_culture":
        ta = t0 + patient.minutes(20, 120)
        _antibiotic(patient, hadm_id, ta, patient.variant)
        _culture(patient, hadm_id, ta + patient.minutes(60, 1200), 2, ("negative", "positive", "negative_org")[g % 3])
    elif mode == "chartdate":
        tc = t0 + patient.minutes(60, 300)
        _culture(patient, hadm_id, tc, 3 if scen.name == "liver_failure" else 1,
                 "positive" if g % 2 == 0 else "negative", chartdate_only=True)
        _antibiotic(patient, hadm_id, midnight(tc) + DAY * (1 + g % 2) + patient.minutes(480, 900), patient.variant)
    elif mode == "abx_only":
        _antibiotic(patient, hadm_id, t0 - patient.minutes(30, 120), 8)  # cefazolin prophylaxis, no culture
    elif mode == "culture_only":
        _culture(patient, hadm_id, t0 + patient.minutes(60, 300), 0, "negative_org")
    if scen.name == "respiratory_niv":
        # a cancelled sputum culture: m4's concept counts it as positive (mimic-code HEAD does not)
        tc = t0 + patient.minutes(600, 900)
        _culture(patient, hadm_id, tc, 2, "cancelled")
        _antibiotic(patient, hadm_id, tc + patient.minutes(60, 240), patient.variant + 3)
    # rows the antibiotic concept must drop
    drug, route, drug_type = cat.EXCLUDED_ANTIBIOTICS[(patient.index + g) % len(cat.EXCLUDED_ANTIBIOTICS)]
    _antibiotic(patient, hadm_id, t0 + patient.minutes(120, 1200), 0, drug_type=drug_type, override=(drug, route))
