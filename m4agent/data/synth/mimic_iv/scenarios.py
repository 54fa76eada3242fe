"""Clinical scenarios: what kind of patient each synthetic subject is.

Patients are assigned scenarios in a fixed cycle (patient ``i`` gets
``SCENARIOS[i % len(SCENARIOS)]``) and a grade ``(i // len(SCENARIOS)) % 5``.
Organs listed in a scenario's ``graded`` take the SOFA level equal to the grade,
so in 200 patients every graded organ reaches every level 0-4 regardless of the
seed; the seed only moves values inside the band of their level.

Organ levels are SOFA levels (0-4) for the first 24 hours of the first ICU stay:
``resp`` (PaO2/FiO2), ``coag`` (platelets), ``liver`` (bilirubin), ``cardio``
(MAP and vasopressors), ``cns`` (GCS), ``renal`` (creatinine).
"""

from __future__ import annotations

from dataclasses import dataclass, field

ORGANS = ("resp", "coag", "liver", "cardio", "cns", "renal")


@dataclass(frozen=True)
class Scenario:
    name: str
    graded: tuple[str, ...] = ()
    base: dict[str, int] = field(default_factory=dict)
    vent: str = "o2"  # ett, niv, trach, hfnc, o2, room
    los_h: tuple[float, float] = (30.0, 96.0)
    admission: str = "emergency"  # emergency, elective, urgent
    service: str = "MED"
    themes: tuple[str, ...] = ()
    infection: str = "none"  # culture_then_abx, abx_then_culture, chartdate, abx_only, culture_only, graded, none
    vaso: str = "none"  # escalating, cardiogenic, none
    aki: str = "none"  # creat, uo, crrt, none
    missing: str = "none"  # none, graded, chart
    icu_stays: int = 1  # ICU stays in the index admission
    prior_admission: bool = False  # an earlier admission (readmission)
    fever: bool = False
    gas: bool = True  # arterial blood gases charted


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("sepsis_shock", graded=("coag", "resp"), base={"liver": 1, "cns": 0, "renal": 2},
             vent="ett", los_h=(60, 150), themes=("sepsis", "pneumonia"),
             infection="culture_then_abx", vaso="escalating", fever=True),
    Scenario("ventilated_ett", graded=("resp",), base={"coag": 0, "liver": 0, "cardio": 1, "renal": 0},
             vent="ett", los_h=(50, 140), themes=("resp_failure", "pneumonia"), infection="abx_then_culture"),
    Scenario("aki_creatinine", graded=(), base={"resp": 0, "coag": 1, "liver": 0, "cardio": 1, "cns": 0},
             vent="room", los_h=(60, 120), themes=("aki",), aki="creat", gas=False),
    Scenario("aki_oliguria", graded=("coag",), base={"resp": 1, "liver": 0, "cardio": 1, "cns": 1, "renal": 1},
             vent="o2", los_h=(60, 120), themes=("aki", "cardiac"), aki="uo"),
    Scenario("crrt", graded=(), base={"resp": 2, "coag": 2, "liver": 1, "cardio": 3, "cns": 1, "renal": 4},
             vent="o2", los_h=(70, 160), themes=("aki", "ckd_late"), aki="crrt", infection="chartdate"),
    Scenario("liver_failure", graded=("liver", "coag"), base={"resp": 1, "cardio": 1, "cns": 2, "renal": 2},
             vent="o2", los_h=(50, 140), themes=("liver",), infection="chartdate", gas=False),
    Scenario("elective_surgery", graded=(), base={"resp": 0, "coag": 0, "liver": 0, "cardio": 0, "cns": 0, "renal": 0},
             vent="o2", los_h=(18, 40), admission="elective", service="SURG", themes=("surgery",),
             infection="abx_only"),
    Scenario("short_stay", graded=("cns",), base={"resp": 0, "coag": 0, "liver": 0, "cardio": 0, "renal": 0},
             vent="room", los_h=(4, 10), themes=("cardiac",), gas=False),
    Scenario("readmission", graded=("renal",), base={"resp": 1, "coag": 1, "liver": 0, "cardio": 1, "cns": 0},
             vent="hfnc", los_h=(30, 80), themes=("copd", "pneumonia"), infection="graded",
             icu_stays=2, prior_admission=True),
    Scenario("missing_families", graded=(), base={"resp": 0, "coag": 0, "liver": 0, "cardio": 1, "cns": 0, "renal": 1},
             vent="o2", los_h=(30, 80), themes=("cardiac",), missing="graded", gas=False),
    Scenario("no_chartevents", graded=(), base={"coag": 1, "liver": 0, "renal": 1},
             vent="room", los_h=(20, 60), themes=("neuro",), missing="chart", gas=False, infection="abx_only"),
    Scenario("cardiogenic", graded=("cardio",), base={"resp": 2, "coag": 0, "liver": 1, "cns": 0, "renal": 1},
             vent="o2", los_h=(50, 130), service="CMED", themes=("cardiac",), vaso="cardiogenic"),
    Scenario("respiratory_niv", graded=("resp",), base={"coag": 0, "liver": 0, "cardio": 0, "cns": 1, "renal": 0},
             vent="niv", los_h=(50, 120), themes=("copd", "resp_failure"), infection="graded"),
    Scenario("tracheostomy", graded=(), base={"resp": 2, "coag": 1, "liver": 0, "cardio": 0, "cns": 0, "renal": 0},
             vent="trach", los_h=(100, 200), service="TSURG", themes=("resp_failure",), infection="culture_then_abx"),
    Scenario("neuro", graded=("cns",), base={"resp": 0, "coag": 0, "liver": 0, "cardio": 0, "renal": 0},
             vent="room", los_h=(30, 100), service="NMED", themes=("neuro",), gas=False),
    Scenario("medical_general", graded=("renal", "resp"), base={"coag": 0, "liver": 0, "cardio": 0, "cns": 0},
             vent="o2", los_h=(24, 90), themes=("pneumonia",), infection="graded", fever=True),
)


def scenario_for(patient_index: int) -> tuple[Scenario, int]:
    """The scenario and grade (0-4) of the patient with this index."""
    n = len(SCENARIOS)
    return SCENARIOS[patient_index % n], (patient_index // n) % 5


def organ_levels(scenario: Scenario, grade: int, draw: int) -> dict[str, int]:
    """SOFA level per organ for the first ICU stay; ungraded organs without a base vary mildly."""
    levels = {}
    for organ in ORGANS:
        if organ in scenario.graded:
            levels[organ] = grade
        elif organ in scenario.base:
            levels[organ] = scenario.base[organ]
        else:
            levels[organ] = draw % 2
    if scenario.name == "sepsis_shock":
        levels["cardio"] = 4 if grade % 2 == 0 else 3
    return levels
