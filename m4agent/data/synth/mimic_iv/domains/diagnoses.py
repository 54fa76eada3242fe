"""The diagnoses of an admission (``diagnoses_icd``).

The index admission carries the codes of its scenario's themes, then the comorbidities the
Charlson index and the scores read (chronic kidney disease, haematological malignancy, AIDS,
metastases) where a scenario's grade plants them, then random Charlson and filler codes; an
earlier admission has filler only.
"""

from __future__ import annotations

import numpy as np

from m4agent.data.synth.mimic_iv import catalog as cat
from m4agent.data.synth.mimic_iv.context import Patient


def add_diagnoses(patient: Patient, hadm_id: int, index_admission: bool) -> None:
    """The admission's ICD codes in the patient's ICD version, without repeats, numbered in order."""
    rng, scen, g = patient.rng, patient.scen, patient.grade
    v = 0 if patient.icd_version == 9 else 1
    codes: list[str] = []
    themes = list(scen.themes) if index_admission else ["filler"]
    for theme in themes:
        options = cat.THEME_CODES[theme]
        codes.append(options[(patient.variant + g) % len(options)][v])
    if scen.aki == "crrt" or (scen.name == "medical_general" and g >= 3):
        codes.append(cat.THEME_CODES["ckd_late"][0][v])  # CKD: baseline creatinine is the observed minimum
    if scen.name == "medical_general" and g == 4:
        codes.append(cat.THEME_CODES["hem_malignancy"][0][v])
    if scen.name == "liver_failure" and g == 4:
        codes.append(cat.CHARLSON_CODES["aids"][v])
    if scen.name in ("tracheostomy", "liver_failure") and g == 2:
        codes.append(cat.THEME_CODES["metastases"][0][v])
    comorbidities = list(cat.CHARLSON_CODES)
    for _ in range(int(rng.integers(0, 4))):
        codes.append(cat.CHARLSON_CODES[comorbidities[int(rng.integers(0, len(comorbidities)))]][v])
    for _ in range(int(rng.integers(1, 5))):
        filler = cat.THEME_CODES["filler"]
        codes.append(filler[int(rng.integers(0, len(filler)))][v])
    seen: list[str] = []
    for code in codes:
        if code not in seen:
            seen.append(code)
    n = len(seen)
    patient.tables["diagnoses_icd"].add(n, subject_id=patient.subject_id, hadm_id=hadm_id,
                                        seq_num=np.arange(1, n + 1), icd_code=np.array(seen, dtype=object),
                                        icd_version=patient.icd_version)
