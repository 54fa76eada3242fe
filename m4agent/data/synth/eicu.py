"""Deterministic synthetic eICU-CRD 2.0 with the official schema.

``write_database(path, patients=, seed=)`` creates a DuckDB file with schema
``eicu_crd`` holding every table of :data:`m4agent.data.schema.EICU`, filled with
clinically plausible unit stays written in eICU's own conventions: times are
integer minutes from unit admission (negative before it), ages are text
(``'87'``, ``'> 89'``, ``''``), APACHE variables code "missing" as -1,
``uniquepid`` looks like ``'002-33870'`` and infusion drug names carry their
units. A patient has one or more hospital stays, a hospital stay one or more
unit stays.

Every stay is planned first: for each feature the eICU references read (GCS
charting style and messy values, each OASIS component's score band, the urine
and ventilation sources, the elective-surgery sources, the pre-ICU length of
stay band) the options are dealt out in balanced shuffled decks, so a few
hundred stays reach every branch of the two references, including the
awkward ones (text values, out-of-range totals, ties, rows just outside the
time windows, stays with no data at all). Rows are then generated stay by
stay and inserted in chunks, so 50,000 stays fit in modest memory.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from m4agent.data.schema import EICU, Table, create_table_sql

CHUNK_STAYS = 2000

_ARROW_TYPES: dict[str, pa.DataType] = {
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "SMALLINT": pa.int16(),
    "DOUBLE": pa.float64(),
    "VARCHAR": pa.string(),
}


def _arrow_type(duck_type: str) -> pa.DataType:
    # DECIMAL columns travel as DOUBLE and are cast by DuckDB on insert.
    return pa.float64() if duck_type.startswith("DECIMAL") else _ARROW_TYPES[duck_type]


# --------------------------------------------------------------------------
# Random draws
# --------------------------------------------------------------------------
class _Draws:
    """Scalar draws served from numpy ``default_rng`` buffers (fast and deterministic)."""

    def __init__(self, rng: np.random.Generator, size: int = 1 << 16) -> None:
        self._rng = rng
        self._size = size
        self._buf: list[float] = []
        self._pos = 0

    def random(self) -> float:
        try:
            value = self._buf[self._pos]
        except IndexError:
            self._buf = self._rng.random(self._size).tolist()
            self._pos = 0
            value = self._buf[0]
        self._pos += 1
        return value

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self.random()

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high], both inclusive."""
        span = high - low
        step = int(self.random() * (span + 1))
        return low + (step if step <= span else span)

    def choice(self, options: Sequence[Any]) -> Any:
        return options[self.integer(0, len(options) - 1)]

    def chance(self, p: float) -> bool:
        return self.random() < p

    def weighted(self, options: dict[Any, int]) -> Any:
        """An option drawn with probability proportional to its weight."""
        target = self.random() * sum(options.values())
        for option, weight in options.items():
            target -= weight
            if target < 0:
                return option
        return option


def _deck(rng: np.random.Generator, n: int, options: dict[Any, int]) -> list[Any]:
    """``n`` options dealt from shuffled decks holding each option ``weight`` times.

    Every option appears at least once in each full deck, so rare branches are
    reached in small data sets while the weights keep the mix realistic.
    """
    deck = [option for option, weight in options.items() for _ in range(weight)]
    out: list[Any] = []
    while len(out) < n:
        out.extend(deck[i] for i in rng.permutation(len(deck)))
    return out[:n]


# --------------------------------------------------------------------------
# Vocabulary (as eICU spells it)
# --------------------------------------------------------------------------
HOSPITALS = [73, 110, 122, 140, 141, 167, 176, 188, 199, 243, 252, 264, 281, 300, 338, 394, 417, 420, 443, 458]
UNIT_TYPES = {"Med-Surg ICU": 6, "MICU": 2, "CCU-CTICU": 2, "SICU": 1, "Neuro ICU": 1, "Cardiac ICU": 1, "CSICU": 1, "CTICU": 1}
ETHNICITIES = {"Caucasian": 12, "African American": 2, "Hispanic": 1, "Asian": 1, "Native American": 1, "Other/Unknown": 1, "": 1}
ADMIT_DX_MEDICAL = [
    "Sepsis, pulmonary", "Sepsis, renal/UTI (including bladder)", "Infarction, acute myocardial (MI)",
    "CHF, congestive heart failure", "Overdose, sedatives, hypnotics, antipsychotics, benzodiazepines",
    "CVA, cerebrovascular accident/stroke", "Cardiac arrest (with or without respiratory arrest; for respiratory arrest see Respiratory System)",
    "Diabetic ketoacidosis", "Emphysema/bronchitis", "Rhythm disturbance (atrial, supraventricular)",
    "GI bleeding, upper", "Pneumonia, bacterial",
]
ADMIT_DX_SURGICAL = [
    "CABG alone, coronary artery bypass grafting", "Aortic valve replacement (isolated)",
    "Craniotomy for neoplasm", "Cholecystectomy/cholangitis, surgery for (gallbladder removal)",
    "Hip replacement, total (non-traumatic)", "Spinal cord surgery",
]
HOSP_DISCHARGE = {"Home": 8, "Skilled Nursing Facility": 2, "Rehabilitation": 1, "Other External": 1, "Other Hospital": 1}
UNIT_DISCHARGE = {"Floor": 8, "Step-Down Unit (SDU)": 2, "Telemetry": 1, "Home": 1, "Other ICU": 1}

NC_GCS_LABEL = "Glasgow coma score"
NC_GCS_SCORE_LABEL = "Score (Glasgow Coma Scale)"
GCS_TEXT_VALUES = [
    "Unable to score due to medication", "Unable to score due to sedation", "unable to assess", "Not Done",
]
IBP_SPELLINGS = [
    ("Vital Signs", "Invasive BP", "Invasive BP Mean"),
    ("Other Vital Signs and Infusions", "MAP (mmHg)", "Value"),
    ("Other Vital Signs and Infusions", "Arterial Line MAP (mmHg)", "Value"),
]

IO_PREFIX = "flowsheet|Flowsheet Cell Labels|I&O|"
URINE_EXACT = [
    "Urine", "Foley", "Actual Urine", "Indwelling Foley", "Straight Cath", "Urine Output-Foley",
    "Condom Catheter", "True Urine", "Urine (measured)", "urinary output 7AM-7PM",
    "Suprapubic Urine Output", "Urine, void:", "Straight Cath'd", "Urine Output-R Nephrostomy",
]
URINE_FOLEY_ILIKE = ["foley", "FOLEY", "Foley Catheter", "Foley cath", "foley catheter output"]
URINE_LIKE_PATTERNS = [
    "Output (ml)-Urinary Catheter Indwelling/Continuous-Urethral",
    "Output (ml)-Urethral Catheter Latex;Double-lumen 16 Fr.",
    "Urine Output (mL)-Urethral Catheter",
    "Output (ml)-External Urethral Catheter",
    "Urinary Catheter Output: Indwelling/Continuous Ure",
]
# Output cells that look like urine but do not count (the foley rule drops
# 'pacu', 'or' and 'ir'), and output cells that are not urine at all.
URINE_NOT_COUNTED = [
    "Foley irrigant", "Foley - PACU", "Foley in OR", "foley color", "Urine output (PACU)".lower(),
    "Chest Tube #1", "Stool", "Emesis", "Nasogastric", "Blood Loss", "JP drain",
]
INTAKE_CELLS = [
    ("Intake (ml)|Continuous infusion meds", "Continuous infusion meds"),
    ("Intake (ml)|Oral Intake", "Oral Intake"),
    ("Intake (ml)|IV Piggyback", "IV Piggyback"),
]

PE_GCS_PREFIX = "notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS/"

INFUSIONS = [
    ("Norepinephrine (mcg/min)", 2.0, 30.0, "mcg"), ("Propofol (mcg/kg/min)", 5.0, 50.0, "mg"),
    ("Heparin (units/hr)", 500.0, 1800.0, "units"), ("Vasopressin (units/min)", 0.01, 0.04, "units"),
    ("Dopamine (mcg/kg/min)", 2.0, 15.0, "mg"), ("Insulin (units/hr)", 1.0, 12.0, "units"),
    ("Fentanyl (mcg/hr)", 25.0, 200.0, "mcg"), ("Phenylephrine (mcg/min)", 20.0, 180.0, "mg"),
]
MEDICATIONS = [
    ("PROPOFOL 10 MG/ML IV EMUL", 4842, "50 mcg/kg/min", "Intravenous", "Continuous"),
    ("PANTOPRAZOLE 40 MG IV RECON SOLN", 22008, "40 mg", "Intravenous", "Daily"),
    ("HEPARIN (PORCINE) 5000 UNIT/ML IJ SOLN", 2808, "5000 Units", "Subcutaneous", "Q8H"),
    ("ACETAMINOPHEN 325 MG PO TABS", 1866, "650 mg", "PO", "Q4H PRN"),
    ("vancomycin", 10093, "1250 mg", "IV", "Q12H"),
    ("piperacillin-tazobactam", 33427, "3.375 g", "IV", "Q6H"),
    ("MORPHINE INJ", 1694, "2 mg", "IV Push", "Q2H PRN"),
    ("Insulin Regular", None, "", "Subcutaneous", "Sliding scale"),
]
TREATMENTS = [
    "pulmonary|ventilation and oxygenation|mechanical ventilation",
    "pulmonary|ventilation and oxygenation|oxygen therapy (< 40%)|nasal cannula",
    "cardiovascular|shock|vasopressors|norepinephrine > 0.1 micrograms/kg/min",
    "infectious diseases|medications|therapeutic antibacterials|cephalosporin",
    "renal|dialysis|hemodialysis",
    "gastrointestinal|medications|stress ulcer prophylaxis|pantoprazole",
    "neurologic|pain / agitation / altered mentation|sedative agent|propofol",
]
DIAGNOSES = [
    ("cardiovascular|shock / hypotension|sepsis|sepsis with single organ dysfunction", "995.92, R65.20"),
    ("pulmonary|respiratory failure|acute respiratory failure", "518.81, J96.00"),
    ("renal|disorder of kidney|acute renal failure", "584.9, N17.9"),
    ("cardiovascular|chest pain / ASHD|acute coronary syndrome|acute myocardial infarction (with ST elevation)", "410.91, I21.3"),
    ("neurologic|altered mental status / pain|encephalopathy", "348.30, G93.40"),
    ("endocrine|glucose metabolism|diabetes mellitus", ""),
    ("toxicology|drug overdose|drug overdose- general", "977.9, T50.901"),
]
LABS = [
    # labname, typeid, low, high, decimals, unit
    ("creatinine", 1, 0.5, 4.5, 2, "mg/dL"), ("sodium", 1, 128.0, 150.0, 0, "mmol/L"),
    ("potassium", 1, 3.0, 5.8, 1, "mmol/L"), ("BUN", 1, 7.0, 80.0, 0, "mg/dL"),
    ("glucose", 1, 70.0, 320.0, 0, "mg/dL"), ("total bilirubin", 1, 0.2, 6.0, 1, "mg/dL"),
    ("WBC x 1000", 3, 2.0, 28.0, 1, "K/mcL"), ("Hct", 3, 21.0, 48.0, 1, "%"),
    ("platelets x 1000", 3, 20.0, 400.0, 0, "K/mcL"), ("lactate", 1, 0.6, 9.0, 1, "mmol/L"),
    ("paO2", 7, 55.0, 300.0, 0, "mm Hg"), ("FiO2", 7, 21.0, 100.0, 0, "%"), ("pH", 7, 7.05, 7.55, 2, "Units"),
]


# --------------------------------------------------------------------------
# The plan of one unit stay
# --------------------------------------------------------------------------
@dataclass
class _Stay:
    unit_id: int
    hs_id: int
    uniquepid: str
    hospital: int
    unit_visit: int
    hs_units: int
    gender: str
    age: str | None
    ethnicity: str
    admit_offset: int  # patient.hospitaladmitoffset (<= 0)
    los: int  # unitdischargeoffset
    died: bool
    plan: dict[str, Any] = field(default_factory=dict)


# Balanced decks: option -> weight.
PLAN_DECKS: dict[str, dict[Any, int]] = {
    # GCS charting style in nursecharting
    "gcs_style": {"none": 2, "label_total": 4, "score_total": 2, "components_only": 2, "mixed": 3, "outside_only": 1},
    "gcs_target": {"coma": 2, "moderate": 3, "mild": 2, "normal": 4},
    "gcs_text": {True: 1, False: 2},
    "gcs_out_of_range": {True: 1, False: 2},
    "gcs_tie": {True: 1, False: 2},
    "gcs_boundary": {True: 1, False: 2},
    "gcs_both_spellings": {True: 1, False: 3},
    "gcs_excluded_category": {True: 1, False: 4},
    "gcs_duplicates": {True: 1, False: 4},
    # physical-exam GCS
    "pe_style": {"none": 6, "match_one_digit": 1, "match_two_digits": 2, "component_paths": 1, "text": 1, "outside": 1, "null_value": 1},
    "pe_target": {"coma": 1, "moderate": 1, "mild": 1, "normal": 1, "odd": 1},
    # vitals: score bands of the OASIS components
    "hr_band": {"none": 1, 4: 1, 0: 4, 1: 2, 3: 1, 6: 1},
    "rr_band": {"none": 1, 10: 1, "1_low": 1, 0: 4, "1_high": 1, 6: 1, 9: 1, "zeros": 1},
    "temp_band": {"none": 1, 3: 1, 4: 1, "2_low": 1, 0: 3, "2_high": 2, 6: 1},
    "ibp_band": {"none": 6, 4: 1, 3: 1, 2: 1, 0: 3, "3_high": 1},
    "nibp_band": {"none": 2, 4: 1, 3: 1, 2: 1, 0: 5, "3_high": 1},
    "vital_messy": {True: 1, False: 2},
    # urine output
    "uo_source": {"io_exact": 4, "io_foley": 2, "io_like": 2, "io_mixed": 2, "apache_fallback": 2,
                  "apache_missing": 1, "apache_zero": 1, "not_counted_only": 1, "outside_only": 1},
    "uo_band": {10: 1, 5: 1, 1: 1, 0: 2, 8: 1},
    # ventilation evidence
    "vent": {"none": 14, "apsvar": 1, "predvar": 1, "rc_full": 3, "rc_airwaytype": 1, "rc_airwaysize": 1,
             "rc_airwayposition": 1, "rc_cuffpressure": 1, "rc_setapneatv": 1, "rc_outside": 1,
             "rc_empty": 1, "rc_boundary": 1},
    # elective surgery (apachepredvar.electivesurgery x patient.unitadmitsource)
    "elective": {"elective_or": 2, "elective_recovery": 1, "elective_but_ed": 1, "nonelective_ed": 4,
                 "nonelective_floor": 2, "no_apache": 2, "electivesurgery_null": 1, "electivesurgery_minus1": 1,
                 "admitsource_null": 1},
    # pre-ICU length of stay band of the first unit stay of a hospital stay
    "preicu": {5: 3, 3: 2, 0: 2, 2: 2, 1: 1, "boundary": 2},
}

PREICU_BOUNDARIES = [0, 5, -10, -11, -296, -297, -1440, -1441, -18708, -18709]


def _plan(rng: np.random.Generator, draws: _Draws, patients: int) -> list[_Stay]:
    n_hs_per_patient = _deck(rng, patients, {1: 12, 2: 3, 3: 1})
    if patients >= 2:
        n_hs_per_patient[0] = 2
    age_bands = _deck(rng, patients, {"": 1, "young": 1, "adult": 3, "older": 4, "old": 2, "> 89": 1})
    genders = _deck(rng, patients, {"Male": 6, "Female": 5, "Unknown": 1})
    pid_numbers = rng.choice(np.arange(1000, 1_000_000), size=patients, replace=False)
    pid_prefix = rng.choice([2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 16, 17, 18, 19, 20, 21, 22, 24, 25, 27, 28, 30, 31, 32, 33, 35], size=patients)

    stays: list[_Stay] = []
    hs_total = int(sum(n_hs_per_patient))
    units_per_hs = _deck(rng, hs_total, {1: 10, 2: 3, 3: 1})
    if hs_total:
        units_per_hs[0] = max(units_per_hs[0], 2)
    hs_ids = rng.choice(np.arange(100_000, 3_400_000), size=hs_total, replace=False)
    hs_ids.sort()
    n_units = int(sum(units_per_hs))
    unit_ids = rng.choice(np.arange(141_000, 3_400_000), size=n_units, replace=False)
    unit_ids.sort()
    hs_i = 0
    unit_i = 0
    for p in range(patients):
        uniquepid = f"{int(pid_prefix[p]):03d}-{int(pid_numbers[p])}"
        band = age_bands[p]
        base_age = {"": -1, "young": draws.integer(16, 23), "adult": draws.integer(24, 53),
                    "older": draws.integer(54, 77), "old": draws.integer(78, 89), "> 89": 90}[band]
        ethnicity = draws.weighted(ETHNICITIES)
        missing_age = draws.choice(["", None])  # both spellings of a missing age occur
        gender = genders[p] if genders[p] != "Unknown" else draws.choice(["Unknown", ""])
        for h in range(n_hs_per_patient[p]):
            age_years = base_age + h if base_age >= 0 else -1
            if age_years < 0:
                age = missing_age
            elif age_years > 89:
                age = "> 89"
            else:
                age = str(age_years)
            hospital = draws.choice(HOSPITALS)
            k = units_per_hs[hs_i]
            minutes_since_admit = 0
            for u in range(k):
                los = int(max(90, math.exp(draws.uniform(math.log(240), math.log(12_000)))))
                stays.append(_Stay(
                    unit_id=int(unit_ids[unit_i]), hs_id=int(hs_ids[hs_i]), uniquepid=uniquepid,
                    hospital=hospital, unit_visit=u + 1, hs_units=k, gender=gender, age=age,
                    ethnicity=ethnicity, admit_offset=-minutes_since_admit, los=los,
                    died=(h == n_hs_per_patient[p] - 1) and (u == k - 1) and draws.chance(0.1),
                ))
                minutes_since_admit += los + draws.integer(60, 4000)
                unit_i += 1
            hs_i += 1

    n = len(stays)
    decks = {name: _deck(rng, n, options) for name, options in PLAN_DECKS.items()}
    for i, stay in enumerate(stays):
        stay.plan = {name: deck[i] for name, deck in decks.items()}
        if stay.unit_visit == 1:
            stay.admit_offset = _preicu_offset(draws, stay.plan["preicu"])
        elif stay.plan["preicu"] == "boundary":
            stay.admit_offset = min(stay.admit_offset, -1441)
        if stay.plan["elective"] == "no_apache" and stay.plan["vent"] in ("apsvar", "predvar"):
            stay.plan["vent"] = "none"
    # later unit stays of a hospital stay start after the earlier ones
    for i in range(1, n):
        prev, cur = stays[i - 1], stays[i]
        if cur.hs_id == prev.hs_id and cur.admit_offset > prev.admit_offset - prev.los:
            cur.admit_offset = prev.admit_offset - prev.los - draws.integer(60, 3000)
    return stays


def _preicu_offset(draws: _Draws, band: Any) -> int:
    if band == "boundary":
        return draws.choice(PREICU_BOUNDARIES)
    low, high = {5: (-10, 0), 3: (-296, -11), 0: (-1440, -297), 2: (-18708, -1441), 1: (-60000, -18709)}[band]
    if band == 5 and draws.chance(0.5):
        return 0
    return draws.integer(low, high)


# --------------------------------------------------------------------------
# Row buffers
# --------------------------------------------------------------------------
class _Rows:
    """Per-table row buffers with running surrogate ids."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[Any, ...]]] = {name: [] for name in EICU}
        self.next_id: dict[str, int] = {name: 1 for name in EICU}

    def add(self, table: str, *values: Any) -> None:
        key = f"eicu_crd.{table}"
        row_id = self.next_id[key]
        self.next_id[key] = row_id + 1 + (row_id % 3)  # ids increase with gaps, as in eICU
        self.rows[key].append((row_id, *values))

    def flush(self, con: duckdb.DuckDBPyConnection) -> None:
        for name, rows in self.rows.items():
            if not rows:
                continue
            _insert(con, EICU[name], rows)
            rows.clear()


def _insert(con: duckdb.DuckDBPyConnection, table: Table, rows: list[tuple[Any, ...]]) -> None:
    columns = list(zip(*rows, strict=True))
    arrays = [pa.array(list(values), type=_arrow_type(col.type)) for values, col in zip(columns, table.columns, strict=True)]
    batch = pa.Table.from_arrays(arrays, names=table.column_names)
    con.register("_synth_batch", batch)
    try:
        con.execute(f"INSERT INTO {table.qualified} SELECT * FROM _synth_batch")
    finally:
        con.unregister("_synth_batch")


# --------------------------------------------------------------------------
# Row generators, one per family of tables
# --------------------------------------------------------------------------
def _time24(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def _patient(rows: _Rows, d: _Draws, s: _Stay) -> None:
    elective = s.plan["elective"]
    surgical = elective in ("elective_or", "elective_recovery", "elective_but_ed", "electivesurgery_minus1", "admitsource_null")
    admit_source = {
        "elective_or": "Operating Room", "elective_recovery": "Recovery Room", "elective_but_ed": "Emergency Department",
        "nonelective_ed": "Emergency Department", "admitsource_null": None,
    }.get(elective) or d.choice(["Floor", "Direct Admit", "Other Hospital", "Step-Down Unit (SDU)", "Operating Room", "Emergency Department"])
    if s.unit_visit > 1:
        admit_source = admit_source if elective == "admitsource_null" else d.choice(["Floor", "Other ICU", "Step-Down Unit (SDU)", admit_source])
    unit_admit_minute = d.integer(0, 1439)
    height = round(d.uniform(150, 195), 1) if d.chance(0.9) else None
    weight = round(d.uniform(45, 140), 1) if d.chance(0.92) else None
    hosp_disch_offset = s.los + d.integer(60, 14_000)
    last = s.unit_visit == s.hs_units
    if admit_source in ("Emergency Department", "Operating Room"):
        hospital_source = admit_source
    else:
        hospital_source = d.choice(["Direct Admit", "Floor", "Other Hospital", None])
    rows.rows["eicu_crd.patient"].append((
        s.unit_id, s.hs_id, s.gender, s.age, s.ethnicity, s.hospital, s.hospital * 10 + d.integer(1, 9),
        d.choice(ADMIT_DX_SURGICAL if surgical else ADMIT_DX_MEDICAL), height,
        _time24(unit_admit_minute + s.admit_offset), s.admit_offset,
        hospital_source,
        d.choice([2014, 2015]), _time24(unit_admit_minute + hosp_disch_offset), hosp_disch_offset,
        "Death" if s.died else d.weighted(HOSP_DISCHARGE), "Expired" if s.died else "Alive",
        d.weighted(UNIT_TYPES), _time24(unit_admit_minute), admit_source, s.unit_visit,
        "admit" if s.unit_visit == 1 else d.choice(["readmit", "transfer", "stepdown/other"]),
        weight, round(weight + d.uniform(-4, 3), 1) if weight and d.chance(0.7) else None,
        _time24(unit_admit_minute + s.los), s.los,
        "Death" if (s.died and last) else d.weighted(UNIT_DISCHARGE), "Expired" if (s.died and last) else "Alive",
        s.uniquepid,
    ))


def _nc(rows: _Rows, d: _Draws, stay: int, offset: int, cat: str, label: str, name: str, value: str | None) -> None:
    rows.add("nursecharting", stay, offset, offset + d.integer(0, 90), cat, label, name, value)


GCS_TARGETS = {"coma": (3, 7), "moderate": (8, 13), "mild": (14, 14), "normal": (15, 15)}


def _split_gcs(d: _Draws, total: int) -> tuple[int, int, int]:
    eyes = d.integer(max(1, total - 11), min(4, total - 2))
    verbal = d.integer(max(1, total - eyes - 6), min(5, total - eyes - 1))
    return eyes, verbal, total - eyes - verbal


def _gcs(rows: _Rows, d: _Draws, s: _Stay) -> None:
    p = s.plan
    style = p["gcs_style"]
    if style == "none":
        return
    low, high = GCS_TARGETS[p["gcs_target"]]
    target = d.integer(low, high)
    start, end = d.integer(-300, 60), min(s.los, 2160)
    offsets = list(range(start, max(end, start + 1), 240))
    if style == "outside_only":
        offsets = [-d.integer(361, 2000), 1441 + d.integer(0, 600)]
    lowest_at = d.choice(offsets)
    for offset in offsets:
        total = target if offset == lowest_at else d.integer(target, 15)
        _gcs_assessment(rows, d, s, offset, total, style)
    if p["gcs_tie"] and style != "outside_only":
        # the same lowest total later on with other components: the earliest offset wins
        tie_offset = min(lowest_at + d.integer(30, 600), 1400)
        if tie_offset not in offsets and tie_offset != lowest_at:
            _gcs_assessment(rows, d, s, tie_offset, target, style)
    if p["gcs_boundary"]:
        # just inside (-360, 1440) and just outside (-361, 1441) the GCS window
        for offset in (-361, 1441, -360, 1440):
            inside = offset in (-360, 1440)
            total = target if inside else max(3, target - 2)
            _gcs_assessment(rows, d, s, offset, total, "label_total" if style == "outside_only" else style)
        # before admission: inside the GCS window, outside OASIS (0, 1440]
        _gcs_assessment(rows, d, s, -d.integer(1, 300), max(3, target - 1), "label_total")
    if p["gcs_text"]:
        offset = d.choice(offsets)
        name = d.choice(["GCS Total", "Motor", "Verbal", "Eyes"])
        _nc(rows, d, s.unit_id, offset, "Scores", NC_GCS_LABEL, name, d.choice(GCS_TEXT_VALUES))
        if d.chance(0.5):
            _nc(rows, d, s.unit_id, d.integer(1, 1400), "Other Vital Signs and Infusions", NC_GCS_SCORE_LABEL, "Value",
                "Unable to score due to medication")
    if p["gcs_out_of_range"]:
        offset = d.integer(-100, 1400)
        bad = d.choice(["0", "1", "2", "16", "20", "99"])
        _nc(rows, d, s.unit_id, offset, "Scores", NC_GCS_LABEL, "GCS Total", bad)
        if d.chance(0.5):  # with components charted at the same time
            eyes, verbal, motor = _split_gcs(d, d.integer(3, 15))
            for name, value in (("Eyes", eyes), ("Verbal", verbal), ("Motor", motor)):
                _nc(rows, d, s.unit_id, offset, "Scores", NC_GCS_LABEL, name, str(value))
    if p["gcs_both_spellings"]:
        offset = d.integer(1, 1400)
        _nc(rows, d, s.unit_id, offset, "Scores", NC_GCS_LABEL, "GCS Total", str(d.integer(3, 15)))
        _nc(rows, d, s.unit_id, offset, "Other Vital Signs and Infusions", NC_GCS_SCORE_LABEL, "Value", str(d.integer(3, 15)))
    if p["gcs_excluded_category"]:
        _nc(rows, d, s.unit_id, d.integer(1, 1400), "Vital Signs", NC_GCS_LABEL, "GCS Total", "3")
    if p["gcs_duplicates"]:
        offset = d.choice(offsets)
        _nc(rows, d, s.unit_id, offset, "Scores", NC_GCS_LABEL, "Motor", str(d.integer(1, 6)))


def _gcs_assessment(rows: _Rows, d: _Draws, s: _Stay, offset: int, total: int, style: str) -> None:
    eyes, verbal, motor = _split_gcs(d, total)
    if style == "mixed":
        style = d.choice(["label_total", "score_total", "components_only", "total_only"])
    if style in ("label_total", "total_only", "outside_only"):
        _nc(rows, d, s.unit_id, offset, "Scores", NC_GCS_LABEL, "GCS Total", str(total))
    if style == "score_total":
        _nc(rows, d, s.unit_id, offset, "Other Vital Signs and Infusions", NC_GCS_SCORE_LABEL, "Value", str(total))
    if style in ("label_total", "components_only", "outside_only"):
        components = [("Eyes", eyes), ("Verbal", verbal), ("Motor", motor)]
        if style == "components_only" and d.chance(0.3):
            components.pop(d.integer(0, 2))  # a component left blank: defaults apply
        for name, value in components:
            _nc(rows, d, s.unit_id, offset, "Scores", NC_GCS_LABEL, name, str(value))


def _physical_exam(rows: _Rows, d: _Draws, s: _Stay) -> None:
    style = s.plan["pe_style"]
    routine = [("notes/Progress Notes/Physical Exam/Physical Exam/Constitutional/Vital Sign and Physiological Data/HR Current/HR Current", str(d.integer(60, 120))),
               ("notes/Progress Notes/Physical Exam/Physical Exam Obtain Options/Performed - Structured", "Performed - Structured")]
    for path, value in routine:
        rows.add("physicalexam", s.unit_id, d.integer(10, 1500), path, value, value)
    if style == "none":
        return
    target = {"coma": d.integer(3, 7), "moderate": d.integer(8, 13), "mild": 14, "normal": 15, "odd": d.choice([0, 1, 2, 16, 25])}[s.plan["pe_target"]]
    offset = d.integer(1, 1440)
    if style == "match_one_digit":
        target = min(target, 9)
        rows.add("physicalexam", s.unit_id, offset, f"{PE_GCS_PREFIX}{target}", str(target), str(target))
    elif style == "match_two_digits":
        target = max(target, 10)
        rows.add("physicalexam", s.unit_id, offset, f"{PE_GCS_PREFIX}{target}", str(target), str(target))
        rows.add("physicalexam", s.unit_id, d.integer(1, 1440), f"{PE_GCS_PREFIX}{min(15, target + 1)}", str(min(15, target + 1)), None)
    elif style == "component_paths":
        eyes, verbal, motor = _split_gcs(d, max(3, min(15, target)))
        for name, value in (("Eyes Score", eyes), ("Verbal Score", verbal), ("Motor Score", motor)):
            rows.add("physicalexam", s.unit_id, offset, f"{PE_GCS_PREFIX}{name}/{value}", str(value), str(value))
        rows.add("physicalexam", s.unit_id, offset, f"{PE_GCS_PREFIX}Score/scored", "scored", "scored")
    elif style == "text":
        rows.add("physicalexam", s.unit_id, offset, f"{PE_GCS_PREFIX}UN", "unable to score", "unable to score")
        rows.add("physicalexam", s.unit_id, offset, f"{PE_GCS_PREFIX}15", "Unable", "Unable")
    elif style == "outside":
        for off in (0, 1441, -d.integer(1, 600)):
            rows.add("physicalexam", s.unit_id, off, f"{PE_GCS_PREFIX}{target}", str(target), str(target))
        rows.add("physicalexam", s.unit_id, 1440, f"{PE_GCS_PREFIX}{max(3, min(15, target))}", str(max(3, min(15, target))), None)
    elif style == "null_value":
        rows.add("physicalexam", s.unit_id, offset, f"{PE_GCS_PREFIX}{max(3, target)}", None, None)


# (base low, base high, forced low, forced high) per score band; the forced
# value is charted once inside (0, 1440] so the band's extreme is reached.
HR_BANDS = {4: (40, 130, 25, 32), 0: (50, 88, 33, 88), 1: (60, 106, 89, 106), 3: (70, 125, 107, 125), 6: (80, 125, 126, 190)}
RR_BANDS = {10: (12, 26, 1, 5), "1_low": (13, 24, 6, 12), 0: (13, 40, 13, 22), "1_high": (23, 30, 23, 30), 6: (23, 30, 31, 44), 9: (23, 36, 45, 60)}
TEMP_BANDS = {3: (35.5, 38.0, 30.0, 33.2), 4: (36.0, 38.0, 33.3, 35.9), "2_low": (36.4, 37.5, 36.0, 36.3), 0: (36.4, 36.8, 36.4, 36.8),
              "2_high": (36.4, 37.5, 36.9, 39.8), 6: (36.5, 38.0, 39.9, 41.5)}
MAP_BANDS = {4: (60, 100, 10, 20), 3: (60, 100, 21, 50), 2: (62, 100, 51, 61), 0: (65, 110, 62, 143), "3_high": (144, 190, 144, 200)}


def _series(d: _Draws, offsets: list[int], band: tuple[float, float, float, float], decimals: int) -> list[str]:
    base_low, base_high, forced_low, forced_high = band
    values = [round(d.uniform(base_low, base_high), decimals) for _ in offsets]
    inside = [i for i, o in enumerate(offsets) if 0 < o <= 1440]
    if inside:
        values[d.choice(inside)] = round(d.uniform(forced_low, forced_high), decimals)
    return [f"{v:.{decimals}f}" if decimals else str(int(v)) for v in values]


def _vitals(rows: _Rows, d: _Draws, s: _Stay) -> None:
    p = s.plan
    start = d.integer(-90, 45)
    end = min(s.los, 2160)
    offsets = list(range(start, max(end, start + 1), 120))
    if offsets and offsets[-1] < end and end > 1500:
        offsets.append(end)
    uid = s.unit_id
    hr = _series(d, offsets, HR_BANDS[p["hr_band"]], 0) if p["hr_band"] != "none" else None
    if p["rr_band"] == "zeros":
        rr = ["0"] * len(offsets)
    else:
        rr = _series(d, offsets, RR_BANDS[p["rr_band"]], 0) if p["rr_band"] != "none" else None
    temp = _series(d, offsets, TEMP_BANDS[p["temp_band"]], 1) if p["temp_band"] != "none" else None
    ibp = _series(d, offsets, MAP_BANDS[p["ibp_band"]], 0) if p["ibp_band"] != "none" else None
    nibp = _series(d, offsets, MAP_BANDS[p["nibp_band"]], 0) if p["nibp_band"] != "none" else None
    ibp_spelling = d.choice(IBP_SPELLINGS)
    for i, offset in enumerate(offsets):
        if hr:
            _nc(rows, d, uid, offset, "Vital Signs", "Heart Rate", "Heart Rate", hr[i])
        if rr:
            _nc(rows, d, uid, offset, "Vital Signs", "Respiratory Rate", "Respiratory Rate", rr[i])
        if temp and i % 2 == 0:
            _nc(rows, d, uid, offset, "Vital Signs", "Temperature", "Temperature (C)", temp[i])
            if d.chance(0.2):
                _nc(rows, d, uid, offset, "Vital Signs", "Temperature", "Temperature Location", d.choice(["Oral", "Axillary", "Core", "Temporal Artery"]))
        if ibp:
            cat, label, name = ibp_spelling if d.chance(0.8) else d.choice(IBP_SPELLINGS)
            _nc(rows, d, uid, offset, cat, label, name, ibp[i])
        if nibp:
            mean = float(nibp[i])
            _nc(rows, d, uid, offset, "Vital Signs", "Non-Invasive BP", "Non-Invasive BP Systolic", str(int(mean * 1.35)))
            _nc(rows, d, uid, offset, "Vital Signs", "Non-Invasive BP", "Non-Invasive BP Diastolic", str(int(mean * 0.8)))
            _nc(rows, d, uid, offset, "Vital Signs", "Non-Invasive BP", "Non-Invasive BP Mean", nibp[i])
        if d.chance(0.7):
            _nc(rows, d, uid, offset, "Vital Signs", "O2 Saturation", "O2 Saturation", str(d.integer(86, 100)))
        rows.add("vitalperiodic", uid, offset, float(temp[i]) if temp and i % 2 == 0 else None, d.integer(88, 100),
                 int(hr[i]) if hr else None, int(float(rr[i])) if rr else None, d.integer(2, 14) if d.chance(0.2) else None,
                 None, int(float(ibp[i]) * 1.4) if ibp else None, int(float(ibp[i]) * 0.8) if ibp else None,
                 int(float(ibp[i])) if ibp else None, None, None, None,
                 round(d.uniform(-0.5, 0.5), 2), round(d.uniform(-0.5, 0.5), 2), round(d.uniform(-0.5, 0.5), 2), None)
        if nibp:
            mean = float(nibp[i])
            rows.add("vitalaperiodic", uid, offset, float(int(mean * 1.35)), float(int(mean * 0.8)), mean,
                     None, None, None, None, None, None, None)
    # every stay has some data outside (0, 1440] that must not count
    for offset in (0, -d.integer(1, 500), 1441 + d.integer(0, 300)):
        _nc(rows, d, uid, offset, "Vital Signs", "Heart Rate", "Heart Rate", str(d.choice([28, 140, 180])))
        _nc(rows, d, uid, offset, "Vital Signs", "Respiratory Rate", "Respiratory Rate", str(d.choice([3, 50])))
        _nc(rows, d, uid, offset, "Vital Signs", "Temperature", "Temperature (C)", d.choice(["32.1", "40.5"]))
        _nc(rows, d, uid, offset, "Vital Signs", "Non-Invasive BP", "Non-Invasive BP Mean", str(d.choice([15, 160])))
    if p["vital_messy"]:
        _messy_vitals(rows, d, uid)


def _messy_vitals(rows: _Rows, d: _Draws, uid: int) -> None:
    """Values the references must drop or treat exactly as the original does."""
    off = d.integer(1, 1440)
    pick = d.integer(0, 7)
    if pick == 0:
        _nc(rows, d, uid, off, "Vital Signs", "Heart Rate", "Heart Rate", d.choice(["0", "300", "Unable to obtain", "24"]))
    elif pick == 1:
        _nc(rows, d, uid, off, "Vital Signs", "Temperature", "Temperature (C)", d.choice(["98.6", "0", "24.9", "46.1"]))
        _nc(rows, d, uid, off, "Vital Signs", "Temperature", "Temperature (F)", "101.2")
    elif pick == 2:
        _nc(rows, d, uid, off, "Vital Signs", "Respiratory Rate", "Respiratory Rate", d.choice(["0", "61", "70", "see vent"]))
    elif pick == 3:
        _nc(rows, d, uid, off, "Vital Signs", "Non-Invasive BP", "Non-Invasive BP Mean", d.choice(["0", "251", "300"]))
        _nc(rows, d, uid, off, "Vital Signs", "Invasive BP", "Invasive BP Mean", d.choice(["0", "-5", "400", "line flushed"]))
    elif pick == 4:  # decimals that fall between the score bands' cut-points
        _nc(rows, d, uid, off, "Vital Signs", "Temperature", "Temperature (C)", d.choice(["35.935", "36.395", "36.885", "39.885"]))
    elif pick == 5:
        _nc(rows, d, uid, off, "Other Vital Signs and Infusions", "MAP (mmHg)", "Value", d.choice(["61.325", "50.995", "143.445", "20.65"]))
    elif pick == 6:
        _nc(rows, d, uid, off, "Vital Signs", "Heart Rate", "Heart Rate", d.choice(["88.5", "106.5", "32.5"]))
    else:  # charted under a category the references do not read
        _nc(rows, d, uid, off, "Other", "Heart Rate", "Heart Rate", "200")
        _nc(rows, d, uid, off, "Scores", "Respiratory Rate", "Respiratory Rate", str(d.integer(8, 40)))


UO_TOTALS = {10: (150, 670), 5: (671, 1426), 1: (1427, 2543), 0: (2544, 6896), 8: (6897, 9500)}


def _split_total(d: _Draws, total: float, parts: int) -> list[float]:
    weights = [d.uniform(0.5, 1.5) for _ in range(parts)]
    scale = total / sum(weights)
    values = [round(w * scale) for w in weights]
    values[-1] = total - sum(values[:-1])
    return [float(v) for v in values]


def _intake_output(rows: _Rows, d: _Draws, s: _Stay) -> float | None:
    """Write intakeoutput rows; return the value apacheapsvar.urine should hold."""
    p = s.plan
    source = p["uo_source"]
    low, high = UO_TOTALS[p["uo_band"]]
    total = float(d.integer(low, high))
    if p["uo_band"] == 10 and d.chance(0.15):
        total = 0.0
    uid = s.unit_id
    cumulative_out = 0.0

    def cell(offset: int, path: str, value: float, intake: bool = False) -> None:
        nonlocal cumulative_out
        if not intake:
            cumulative_out += value
        label = path.rsplit("|", 1)[-1]
        rows.add("intakeoutput", uid, offset, value if intake else 0.0, value if not intake else 0.0, 0.0,
                 (value if intake else -value), offset + d.integer(0, 120), IO_PREFIX + path, label, value, f"{value:g}")

    # intake, always present
    for offset in range(d.integer(-60, 60), min(s.los, 2000), 360):
        path, _label = d.choice(INTAKE_CELLS)
        cell(offset, path, float(d.integer(20, 500)), intake=True)
    if source in ("io_exact", "io_foley", "io_like", "io_mixed"):
        counted = {"io_exact": URINE_EXACT, "io_foley": URINE_FOLEY_ILIKE, "io_like": URINE_LIKE_PATTERNS,
                   "io_mixed": URINE_EXACT + URINE_FOLEY_ILIKE + URINE_LIKE_PATTERNS}[source]
        spelling = d.choice(counted)
        n = d.integer(3, 10)
        offsets = sorted({d.integer(1, 1440) for _ in range(n)})
        if d.chance(0.3):
            offsets[-1] = 1440
        for offset, value in zip(offsets, _split_total(d, total, len(offsets)), strict=True):
            path = spelling if source != "io_mixed" else d.choice(counted)
            cell(offset, "Output (ml)|" + path, value)
        # urine charted before admission or after the first day does not count
        for offset in (0, -d.integer(1, 300), 1441 + d.integer(0, 600)):
            cell(offset, "Output (ml)|" + spelling, float(d.integer(100, 3000)))
    elif source == "outside_only":
        for offset in (0, -d.integer(1, 300), 1441 + d.integer(0, 600)):
            cell(offset, "Output (ml)|" + d.choice(URINE_EXACT), float(d.integer(100, 3000)))
    if source == "not_counted_only" or d.chance(0.4):
        for _ in range(d.integer(1, 3)):
            cell(d.integer(1, 1440), "Output (ml)|" + d.choice(URINE_NOT_COUNTED), float(d.integer(10, 800)))
    if source == "apache_fallback":
        return total if total > 0 else 35.0
    if source == "apache_zero":
        return 0.0
    if source in ("apache_missing", "not_counted_only", "outside_only"):
        return -1.0
    return total + d.integer(-200, 200) if d.chance(0.6) else -1.0


def _respiratory_care(rows: _Rows, d: _Draws, s: _Stay) -> bool:
    """Write respiratorycare rows; return whether the stay is ventilated (for the APACHE fields)."""
    vent = s.plan["vent"]
    uid = s.unit_id

    def row(offset: int, airwaytype: str | None = None, airwaysize: str | None = None, airwayposition: str | None = None,
            cuffpressure: float | None = None, setapneatv: str | None = None, limits: bool = True) -> None:
        rows.add("respiratorycare", uid, offset, 1, airwaytype, airwaysize, airwayposition, cuffpressure,
                 offset if airwaytype else 0, 0, 0, 0, None,
                 *([float(d.integer(2, 5)), float(d.integer(12, 20)), 250.0, 40.0, 5.0, 35.0, 8.0, None, None, None, None, None, None]
                   if limits else [None] * 13),
                 None, setapneatv, None, None, None, None, None, None)

    if vent == "rc_full":
        for offset in sorted({d.integer(1, 1440) for _ in range(d.integer(1, 4))}):
            row(offset, d.choice(["Oral ETT", "Nasal ETT", "Tracheostomy"]), d.choice(["7", "7.5", "8"]),
                f"{d.integer(20, 25)} cm at lip", float(d.integer(20, 30)), str(d.integer(350, 550)))
    elif vent == "rc_airwaytype":
        row(d.integer(1, 1440), airwaytype="Oral ETT", limits=False)
    elif vent == "rc_airwaysize":
        row(d.integer(1, 1440), airwaysize="7.5", limits=False)
    elif vent == "rc_airwayposition":
        row(d.integer(1, 1440), airwayposition="23 cm at lip", limits=False)
    elif vent == "rc_cuffpressure":
        row(d.integer(1, 1440), cuffpressure=25.0, limits=False)
    elif vent == "rc_setapneatv":
        row(d.integer(1, 1440), setapneatv="450", limits=False)
    elif vent == "rc_outside":
        for offset in (0, -d.integer(1, 600), 1441 + d.integer(0, 600)):
            row(offset, "Oral ETT", "7.5", "22 cm at lip", 25.0, "450")
    elif vent == "rc_empty":
        row(d.integer(1, 1440))
    elif vent == "rc_boundary":
        row(1440, airwaytype="Tracheostomy")
    return vent in ("rc_full", "apsvar")


def _apache(rows: _Rows, d: _Draws, s: _Stay, urine: float | None, ventilated: bool) -> None:
    p = s.plan
    if p["elective"] == "no_apache":
        return
    intubated = 1 if p["vent"] in ("apsvar",) or (p["vent"] == "rc_full" and d.chance(0.7)) else 0
    eyes, verbal, motor = _split_gcs(d, d.integer(3, 15))
    missing_gcs = d.chance(0.15)
    rows.add("apacheapsvar", s.unit_id, intubated, 1 if ventilated else 0, 1 if d.chance(0.05) else 0,
             -1 if missing_gcs else eyes, -1 if missing_gcs else motor, -1 if missing_gcs else verbal,
             -1 if not missing_gcs else d.choice([0, 1]),
             urine if urine is not None else -1.0, round(d.uniform(3, 25), 1), round(d.uniform(35, 39.5), 1),
             float(d.integer(8, 40)), float(d.integer(128, 150)), float(d.integer(50, 140)), float(d.integer(45, 120)),
             round(d.uniform(7.1, 7.5), 2) if d.chance(0.5) else -1.0, round(d.uniform(25, 45), 1),
             round(d.uniform(0.5, 4), 2), round(d.uniform(1.5, 4.5), 1) if d.chance(0.5) else -1.0,
             float(d.integer(55, 300)) if d.chance(0.5) else -1.0, float(d.integer(25, 60)) if d.chance(0.5) else -1.0,
             float(d.integer(7, 80)), float(d.integer(70, 300)), round(d.uniform(0.2, 4), 1) if d.chance(0.6) else -1.0,
             float(d.choice([21, 40, 60, 100])) if d.chance(0.5) else -1.0)
    elective = {"elective_or": 1, "elective_recovery": 1, "elective_but_ed": 1, "nonelective_ed": 0, "nonelective_floor": 0,
                "electivesurgery_null": None, "electivesurgery_minus1": -1, "admitsource_null": 1}[p["elective"]]
    oob_intub = 1 if p["vent"] == "predvar" or (p["vent"] == "rc_full" and d.chance(0.5)) else 0
    age_num = int(s.age) if s.age and s.age.isdigit() else (90 if s.age else -1)
    rows.add("apachepredvar", s.unit_id, 0, 0, 0, 0, 1 if s.gender == "Male" else 0, d.integer(0, 2), d.integer(1, 4),
             d.integer(1, 4), d.integer(1, 8), 1, -1, verbal, motor, eyes, age_num, d.choice(["S-CABG", "SEPSISPUL", "CHF", "CVA", "ODSEDHYP"]),
             0, 1 if s.died else 0, 0, 0, 0, 0, 0, 0, 0, elective, 0, 1 if s.unit_visit > 1 else 0, 0, 0,
             1 if ventilated else 0, 1 if ventilated else 0, oob_intub, 1 if d.chance(0.25) else 0, 0,
             round(d.uniform(0, 20), 2), float(d.integer(55, 300)), float(d.choice([21, 40, 60, 100])), -1.0,
             round(d.uniform(0.5, 4), 2), 0, s.unit_visit, 0, 0, verbal, motor, eyes, float(d.integer(55, 300)),
             float(d.choice([21, 40, 60, 100])))
    icu_mortality = "EXPIRED" if s.died else "ALIVE"
    for version in ("IV", "IVa"):
        risk = round(d.uniform(0.01, 0.6), 6)
        rows.add("apachepatientresult", s.unit_id, d.choice(["critical care medicine (CCM)", "pulmonary", "surgery-cardiac", "unknown"]),
                 d.choice(["Medical", "Surgical", "Cardiac Surgery"]), d.integer(10, 120), d.integer(15, 150), version,
                 f"{risk}", icu_mortality, round(d.uniform(1, 8), 4), round(s.los / 1440, 4), f"{min(1.0, risk * 1.3):.6f}",
                 icu_mortality, round(d.uniform(3, 15), 4), round(s.los / 1440 + d.uniform(1, 10), 4), 0, 0, 0,
                 round(s.los / 1440, 4), round(s.los / 1440 + d.uniform(1, 10), 4), 0.0, round(d.uniform(0, 5), 4), 0.0)


def _other_tables(rows: _Rows, d: _Draws, s: _Stay, ventilated: bool) -> None:
    uid = s.unit_id
    for labname, typeid, low, high, decimals, unit in LABS:
        if d.chance(0.25):
            continue
        for offset in (d.integer(-600, 60), d.integer(300, 1700)):
            value = round(d.uniform(low, high), decimals)
            text = f"{value:.{decimals}f}" if decimals else str(int(value))
            rows.add("lab", uid, offset, float(typeid), labname, value, text, unit, unit, offset + d.integer(30, 300))
    for _ in range(d.integer(0, 3)):
        offset = d.integer(-60, 1800)
        rows.add("treatment", uid, offset, d.choice(TREATMENTS), d.choice(["True", "False"]))
    if ventilated:
        rows.add("treatment", uid, d.integer(0, 600), TREATMENTS[0], "True")
    for i in range(d.integer(1, 3)):
        dx, icd = DIAGNOSES[d.integer(0, len(DIAGNOSES) - 1)]
        rows.add("diagnosis", uid, d.choice(["True", "False"]), d.integer(-30, 1500), dx, icd or None,
                 ["Primary", "Major", "Other"][min(i, 2)])
    for _ in range(d.integer(1, 5)):
        name, hicl, dosage, route, frequency = MEDICATIONS[d.integer(0, len(MEDICATIONS) - 1)]
        start = d.integer(-120, 1800)
        rows.add("medication", uid, start - d.integer(0, 60), start, d.choice(["No", "Yes"]),
                 d.choice(["No", "No", "No", "Yes"]), name, hicl, dosage, route, frequency, "No",
                 "Yes" if "PRN" in frequency else "No", start + d.integer(60, 4000), 0)
    for _ in range(d.integer(0, 2)):
        name, low, high, _unit = INFUSIONS[d.integer(0, len(INFUSIONS) - 1)]
        weight = f"{d.uniform(50, 130):.1f}" if d.chance(0.6) else None
        for offset in range(d.integer(0, 600), d.integer(700, 2200), 240):
            rate = round(d.uniform(low, high), 2)
            rows.add("infusiondrug", uid, offset, name, f"{rate:g}", f"{round(rate * 0.8, 1):g}",
                     d.choice(["250", "400", "100", ""]) or None, "250", weight)
    if ventilated:
        for offset in range(d.integer(1, 120), min(1800, s.los), 240):
            for label, value in (("FiO2", str(d.choice([30, 40, 50, 60, 100]))), ("PEEP", str(d.choice([5, 8, 10, 12]))),
                                 ("Tidal Volume (set)", str(d.integer(350, 550))),
                                 ("Mechanical Ventilator Mode", d.choice(["AC/VC", "PRVC", "SIMV", "CPAP/PSV"]))):
                rows.add("respiratorycharting", uid, offset, offset + d.integer(0, 60), "respFlowSettings", label, value)
    elif d.chance(0.4):
        rows.add("respiratorycharting", uid, d.integer(1, 1400), d.integer(1, 1500), "respFlowPtVentData", "O2 Device",
                 d.choice(["Nasal Cannula", "Room Air", "Venturi Mask", "High Flow NC"]))


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------
STAY_WRITERS: list[Callable[[_Rows, _Draws, _Stay], None]] = [_patient, _gcs, _physical_exam, _vitals]


def _chunks(stays: list[_Stay], size: int) -> Iterator[list[_Stay]]:
    for start in range(0, len(stays), size):
        yield stays[start:start + size]


def write_database(path: Path, *, patients: int, seed: int) -> None:
    """Create ``path`` as a DuckDB file with schema ``eicu_crd`` and synthetic data."""
    path = Path(path)
    rng = np.random.default_rng(seed)
    draws = _Draws(rng)
    stays = _plan(rng, draws, patients)
    con = duckdb.connect(str(path))
    try:
        con.execute("CREATE SCHEMA IF NOT EXISTS eicu_crd")
        for table in EICU.values():
            con.execute(create_table_sql(table))
        rows = _Rows()
        for chunk in _chunks(stays, CHUNK_STAYS):
            for stay in chunk:
                for writer in STAY_WRITERS:
                    writer(rows, draws, stay)
                urine = _intake_output(rows, draws, stay)
                ventilated = _respiratory_care(rows, draws, stay)
                _apache(rows, draws, stay, urine, ventilated)
                _other_tables(rows, draws, stay, ventilated)
            rows.flush(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()
