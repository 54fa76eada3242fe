"""The eICU references (ref_eicu_gcs, ref_eicu_oasis) against the original M4Bench ground truth.

For three synthetic eICU databases (seeds 3 and 11, and seed 5 with odd rows planted) the dbt
models are built, then:
- every row and column must equal the original's ground truth (`benchmark/ground_truth/gcs.sql`
  and `oasis.sql` of hannesill/m4) on the same data, committed as data under
  tests/fixtures/golden/eicu/ (tests/support/original_facts.py; remade from a checkout by the
  regeneration check), value for value;
- properties that hold without the original (primary key, one row per unit stay, OASIS total
  equals the sum of its components) and branch coverage: the synthetic data must reach every
  branch of the references, so the comparison above cannot pass by luck.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from support import golden, original_facts
from support.eicu_odd_rows import plant_odd_rows

from m4agent.data.synth import synthesize
from m4agent.paths import database_path

pytestmark = pytest.mark.slow

DATASETS = original_facts.EICU_DATASETS
PATIENTS = original_facts.EICU_PATIENTS
TASKS = {"eicu-gcs": ("gcs", "reference.ref_eicu_gcs"), "eicu-oasis": ("oasis", "reference.ref_eicu_oasis")}
OASIS_SCORES = {
    "preiculos_score": {0, 1, 2, 3, 5},
    "age_score": {0, 3, 6, 7, 9},
    "gcs_score": {0, 3, 4, 10},
    "heart_rate_score": {0, 1, 3, 4, 6},
    "mbp_score": {0, 2, 3, 4},
    "resp_rate_score": {0, 1, 6, 9, 10},
    "temp_score": {0, 2, 3, 4, 6},
    "urineoutput_score": {0, 1, 5, 8, 10},
    "mechvent_score": {0, 9},
    "electivesurgery_score": {0, 6},
}


def _synthesize_and_build(data_dir: Path, seed: int, plant: bool = False) -> Path:
    """Synthesize eICU into ``data_dir`` (optionally plant odd rows), build the eICU models with dbt."""
    db = synthesize("eicu", data_dir, patients=PATIENTS, seed=seed)
    if plant:
        plant_odd_rows(db, seed)
    # profiles.yml opens the MIMIC-IV database as the main one; these models never read it
    duckdb.connect(str(database_path(data_dir, "mimic-iv"))).close()
    # dbt runs in its own process: in this one, its DuckDB connection would stay attached to the files
    build = ("import sys; from pathlib import Path; from m4agent.dbt.runner import invoke; "
             "invoke(Path(sys.argv[1]), ['build', '--select', '+ref_eicu_gcs +ref_eicu_oasis'])")
    done = subprocess.run([sys.executable, "-c", build, str(data_dir)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return db


@pytest.fixture(scope="module", params=["seed3", "seed11"])
def eicu_dataset(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A synthetic eICU database with the eICU models built into it by dbt, and its label."""
    seed, _ = DATASETS[request.param]
    return request.param, _synthesize_and_build(tmp_path_factory.mktemp(f"eicu_refs_{seed}"), seed)


@pytest.fixture(scope="module")
def eicu_db(eicu_dataset: tuple[str, Path]) -> Path:
    return eicu_dataset[1]


@pytest.fixture(scope="module")
def odd_eicu_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """Like ``eicu_db``, with odd rows planted before the build."""
    seed, planted = DATASETS["odd5"]
    assert planted
    return "odd5", _synthesize_and_build(tmp_path_factory.mktemp("eicu_refs_odd"), seed, plant=True)


def _query(db: Path, sql: str) -> pd.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).df()
    finally:
        con.close()


# --------------------------------------------------------------------------
# Against the original ground truth (committed: tests/fixtures/golden/eicu/)
# --------------------------------------------------------------------------
def _differences_from_original(dataset: tuple[str, Path], task: str, tmp_path: Path) -> dict:
    """Keys whose values differ between our reference and the original's ground truth on the same
    data (the original's truth is committed; values compared at the export's 15 significant digits)."""
    label, db = dataset
    _, model = TASKS[task]
    fields = original_facts.original_tasks()[task]
    keys, required = fields["key_columns"], fields["required_columns"]
    values = [c for c in required if c not in keys]
    truth = golden.keyed(original_facts.eicu_truth_rows(label, task), keys, values)
    ours_csv = tmp_path / "ours.csv"
    _query(db, f"SELECT {', '.join(required)} FROM {model}").to_csv(ours_csv, index=False)
    with ours_csv.open(newline="") as handle:
        ours = golden.keyed(list(csv.reader(handle)), keys, values)
    assert len(truth) > 100, f"{label}: the original's truth of {task} has only {len(truth)} rows"
    return {key: (dict(zip(values, ours.get(key, ()), strict=False)), dict(zip(values, theirs, strict=True)))
            for key, theirs in truth.items() if ours.get(key) != theirs} | {
            key: ("extra key", None) for key in ours.keys() - truth.keys()}


@pytest.mark.parametrize("task", list(TASKS))
def test_matches_original_ground_truth(eicu_dataset: tuple[str, Path], task: str, tmp_path: Path) -> None:
    differences = _differences_from_original(eicu_dataset, task, tmp_path)
    assert differences == {}, dict(list(differences.items())[:5])


@pytest.mark.parametrize("task", list(TASKS))
def test_matches_original_ground_truth_on_odd_rows(odd_eicu_db: tuple[str, Path], task: str, tmp_path: Path) -> None:
    differences = _differences_from_original(odd_eicu_db, task, tmp_path)
    assert differences == {}, dict(list(differences.items())[:5])


# --------------------------------------------------------------------------
# Properties that hold without the original
# --------------------------------------------------------------------------
def test_one_row_per_unit_stay(eicu_db: Path) -> None:
    stays = set(_query(eicu_db, "SELECT patientunitstayid FROM eicu_crd.patient")["patientunitstayid"])
    for _key, model in TASKS.values():
        ids = _query(eicu_db, f"SELECT patientunitstayid FROM {model}")["patientunitstayid"]
        assert ids.is_unique, model
        assert set(ids) == stays, model


def test_oasis_total_is_the_sum_of_its_components(eicu_db: Path) -> None:
    oasis = _query(eicu_db, "SELECT * FROM reference.ref_eicu_oasis")
    assert (oasis["oasis"] == oasis[list(OASIS_SCORES)].sum(axis=1)).all()


def test_every_oasis_component_reaches_every_score(eicu_db: Path) -> None:
    oasis = _query(eicu_db, "SELECT * FROM reference.ref_eicu_oasis")
    reached = {column: set(oasis[column].unique()) for column in OASIS_SCORES}
    assert reached == OASIS_SCORES


def test_gcs_reaches_its_range_and_defaults(eicu_db: Path) -> None:
    gcs = _query(eicu_db, "SELECT * FROM reference.ref_eicu_gcs")
    assert set(gcs["gcs_min"].astype(int)) == set(range(3, 16))
    assert set(gcs["gcs_motor"].astype(int)) == set(range(1, 7))
    assert set(gcs["gcs_verbal"].astype(int)) == set(range(1, 6))
    assert set(gcs["gcs_eyes"].astype(int)) == set(range(1, 5))


GCS_CELL = ("nursingchartcelltypevallabel IN ('Glasgow coma score', 'Score (Glasgow Coma Scale)')")
PE_GCS = "notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS/"
IO_OUT = "flowsheet|Flowsheet Cell Labels|I&O|Output (ml)|"

# Each query counts the rows or stays that take one branch of the original ground truth.
BRANCHES = {
    # --- GCS (ground_truth/gcs.sql, and the GCS part of oasis.sql)
    "stays without any GCS charting": f"""
        SELECT COUNT(*) FROM eicu_crd.patient AS p WHERE NOT EXISTS (
            SELECT 1 FROM eicu_crd.nursecharting AS n
            WHERE n.patientunitstayid = p.patientunitstayid AND {GCS_CELL})""",
    "total as 'Glasgow coma score' / 'GCS Total'": """
        SELECT COUNT(*) FROM eicu_crd.nursecharting WHERE nursingchartcelltypevallabel = 'Glasgow coma score'
          AND nursingchartcelltypevalname = 'GCS Total' AND TRY_CAST(nursingchartvalue AS INTEGER) BETWEEN 3 AND 15""",
    "total as 'Score (Glasgow Coma Scale)' / 'Value'": """
        SELECT COUNT(*) FROM eicu_crd.nursecharting WHERE nursingchartcelltypevallabel = 'Score (Glasgow Coma Scale)'
          AND nursingchartcelltypevalname = 'Value' AND TRY_CAST(nursingchartvalue AS INTEGER) BETWEEN 3 AND 15""",
    "components without a total at the same offset": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__gcs_charted AS g
        WHERE g.gcs IS NULL AND g.gcs_motor IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM eicu_crd.nursecharting AS n WHERE n.patientunitstayid = g.patientunitstayid
              AND n.nursingchartoffset = g.chartoffset AND n.nursingchartcelltypevalname IN ('GCS Total', 'Value'))""",
    "a missing component at an offset (default applies)": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__gcs_charted
        WHERE gcs IS NULL AND (gcs_motor IS NULL OR gcs_verbal IS NULL OR gcs_eyes IS NULL)
          AND NOT (gcs_motor IS NULL AND gcs_verbal IS NULL AND gcs_eyes IS NULL)""",
    "text values in GCS cells": f"""
        SELECT COUNT(*) FROM eicu_crd.nursecharting WHERE {GCS_CELL}
          AND nursingchartvalue LIKE 'Unable to score%'""",
    "totals out of range": f"""
        SELECT COUNT(*) FROM eicu_crd.nursecharting WHERE {GCS_CELL}
          AND nursingchartcelltypevalname IN ('GCS Total', 'Value')
          AND TRY_CAST(nursingchartvalue AS INTEGER) NOT BETWEEN 3 AND 15""",
    "an out-of-range total as the only value at its offset": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__gcs_charted
        WHERE gcs IS NULL AND gcs_motor IS NULL AND gcs_verbal IS NULL AND gcs_eyes IS NULL""",
    "both total spellings at one offset": """
        SELECT COUNT(*) FROM (
            SELECT patientunitstayid, nursingchartoffset FROM eicu_crd.nursecharting
            WHERE nursingchartcelltypevalname IN ('GCS Total', 'Value')
              AND nursingchartcelltypevallabel IN ('Glasgow coma score', 'Score (Glasgow Coma Scale)')
            GROUP BY ALL HAVING COUNT(DISTINCT nursingchartcelltypevallabel) = 2)""",
    "ties for the lowest total in the window": """
        WITH totals AS (
            SELECT patientunitstayid, chartoffset,
                   COALESCE(gcs, COALESCE(gcs_eyes, 4) + COALESCE(gcs_motor, 6) + COALESCE(gcs_verbal, 5)) AS total
            FROM eicu_derived.int_eicu__gcs_charted WHERE chartoffset BETWEEN -360 AND 1440),
        lowest AS (SELECT patientunitstayid, MIN(total) AS total FROM totals GROUP BY ALL)
        SELECT COUNT(*) FROM (
            SELECT t.patientunitstayid FROM totals AS t JOIN lowest USING (patientunitstayid, total)
            GROUP BY ALL HAVING COUNT(*) > 1)""",
    "GCS on the window edges (-360, 1440) and just outside (-361, 1441)": f"""
        SELECT COUNT(DISTINCT nursingchartoffset) = 4 FROM eicu_crd.nursecharting
        WHERE {GCS_CELL} AND nursingchartoffset IN (-361, -360, 1440, 1441)""",
    "GCS before admission (in the GCS window, outside OASIS's)": f"""
        SELECT COUNT(*) FROM eicu_crd.nursecharting
        WHERE {GCS_CELL} AND nursingchartoffset BETWEEN -360 AND 0""",
    "stays with GCS only outside the window": f"""
        SELECT COUNT(*) FROM (
            SELECT patientunitstayid FROM eicu_crd.nursecharting WHERE {GCS_CELL}
            GROUP BY ALL HAVING bool_and(nursingchartoffset NOT BETWEEN -360 AND 1440))""",
    "GCS under a category that is not read": f"""
        SELECT COUNT(*) FROM eicu_crd.nursecharting WHERE {GCS_CELL}
          AND nursingchartcelltypecat NOT IN ('Scores', 'Other Vital Signs and Infusions')""",
    # --- OASIS GCS from the physical exam
    "OASIS GCS from the physical exam": """
        SELECT COUNT(*) FROM eicu_crd.patient AS p
        WHERE NOT EXISTS (SELECT 1 FROM eicu_derived.int_eicu__gcs_charted AS g
                          WHERE g.patientunitstayid = p.patientunitstayid AND g.gcs IS NOT NULL
                            AND g.chartoffset > 0 AND g.chartoffset <= 1440)
          AND EXISTS (SELECT 1 FROM eicu_derived.int_eicu__gcs_physical_exam AS e
                      WHERE e.patientunitstayid = p.patientunitstayid AND e.gcs IS NOT NULL
                        AND e.physicalexamoffset > 0 AND e.physicalexamoffset <= 1440)""",
    "physical-exam GCS paths of one and of two characters": f"""
        SELECT COUNT(DISTINCT LENGTH(physicalexampath)) = 2 FROM eicu_crd.physicalexam
        WHERE physicalexampath LIKE '{PE_GCS}_' OR physicalexampath LIKE '{PE_GCS}__'""",
    "physical-exam GCS paths that do not match": f"""
        SELECT COUNT(*) FROM eicu_crd.physicalexam WHERE physicalexampath LIKE '{PE_GCS}%'
          AND NOT (physicalexampath LIKE '{PE_GCS}_' OR physicalexampath LIKE '{PE_GCS}__')""",
    "physical-exam GCS as text, NULL, or outside (0, 1440]": f"""
        SELECT (COUNT(*) FILTER (WHERE TRY_CAST(physicalexamvalue AS INTEGER) IS NULL AND physicalexamvalue IS NOT NULL) > 0)
           AND (COUNT(*) FILTER (WHERE physicalexamvalue IS NULL) > 0)
           AND (COUNT(*) FILTER (WHERE physicalexamoffset IN (0, 1441)) > 0)
        FROM eicu_crd.physicalexam WHERE physicalexampath LIKE '{PE_GCS}_' OR physicalexampath LIKE '{PE_GCS}__'""",
    # --- vitals
    "invasive and non-invasive mean pressure in the same stay": """
        SELECT COUNT(*) FROM (SELECT patientunitstayid FROM eicu_derived.int_eicu__vitals_charted
                              WHERE chartoffset > 0 AND chartoffset <= 1440 GROUP BY ALL
                              HAVING COUNT(DISTINCT vital) FILTER (WHERE vital LIKE '%bp_mean') = 2)""",
    "each invasive-pressure spelling": """
        SELECT COUNT(DISTINCT nursingchartcelltypevallabel) = 3 FROM eicu_crd.nursecharting
        WHERE nursingchartcelltypevallabel IN ('Invasive BP', 'MAP (mmHg)', 'Arterial Line MAP (mmHg)')""",
    "implausible or text vital values": """
        SELECT COUNT(*) FROM eicu_crd.nursecharting AS n
        JOIN value_sets.eicu_nursecharting_vital_cells AS c USING (nursingchartcelltypevallabel, nursingchartcelltypevalname)
        WHERE COALESCE(TRY_CAST(n.nursingchartvalue AS DOUBLE) NOT BETWEEN c.valid_low AND c.valid_high, TRUE)""",
    "respiratory rate 0 (a maximum, never a minimum)": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__vitals_charted WHERE vital = 'resp_rate' AND valuenum = 0""",
    "vitals at offset 0 (outside OASIS's window)": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__vitals_charted WHERE chartoffset = 0""",
    # --- urine output
    "urine counted by an exact path": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__urine_output AS u
        JOIN value_sets.eicu_urine_output_cellpaths AS s ON s.match_type = 'exact' AND u.cellpath = s.cellpath_pattern""",
    "urine counted only by the case-insensitive foley pattern": f"""
        SELECT COUNT(*) FROM eicu_derived.int_eicu__urine_output AS u
        WHERE u.cellpath ILIKE '{IO_OUT}foley%' AND u.cellpath NOT IN (
            SELECT cellpath_pattern FROM value_sets.eicu_urine_output_cellpaths WHERE match_type = 'exact')""",
    "urine counted by a LIKE pattern": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__urine_output AS u
        JOIN value_sets.eicu_urine_output_cellpaths AS s ON s.match_type = 'like' AND u.cellpath LIKE s.cellpath_pattern""",
    "foley paths dropped by the 'pacu', 'or', 'ir' exclusions": f"""
        SELECT COUNT(DISTINCT cellpath) >= 3 FROM eicu_crd.intakeoutput
        WHERE cellpath ILIKE '{IO_OUT}foley%' AND intakeoutputid NOT IN (
            SELECT intakeoutputid FROM eicu_derived.int_eicu__urine_output)""",
    "output cells that are not urine": f"""
        SELECT COUNT(*) FROM eicu_crd.intakeoutput WHERE cellpath LIKE '{IO_OUT}%'
          AND intakeoutputid NOT IN (SELECT intakeoutputid FROM eicu_derived.int_eicu__urine_output)""",
    "urine on the window edges (0 and 1440)": """
        SELECT COUNT(DISTINCT intakeoutputoffset) = 2 FROM eicu_derived.int_eicu__urine_output
        WHERE intakeoutputoffset IN (0, 1440)""",
    "APACHE urine used as the fallback": """
        SELECT COUNT(*) FROM eicu_crd.apacheapsvar AS a WHERE a.urine > 0 AND NOT EXISTS (
            SELECT 1 FROM eicu_derived.int_eicu__urine_output AS u WHERE u.patientunitstayid = a.patientunitstayid
              AND u.intakeoutputoffset > 0 AND u.intakeoutputoffset <= 1440)""",
    "APACHE urine missing (-1) or 0 without I&O urine": """
        SELECT COUNT(DISTINCT a.urine) = 2 FROM eicu_crd.apacheapsvar AS a WHERE a.urine <= 0 AND NOT EXISTS (
            SELECT 1 FROM eicu_derived.int_eicu__urine_output AS u WHERE u.patientunitstayid = a.patientunitstayid
              AND u.intakeoutputoffset > 0 AND u.intakeoutputoffset <= 1440)""",
    "I&O urine overrides a different APACHE urine": """
        SELECT COUNT(*) FROM eicu_crd.apacheapsvar AS a JOIN (
            SELECT patientunitstayid, SUM(urineoutput) AS total FROM eicu_derived.int_eicu__urine_output
            WHERE intakeoutputoffset > 0 AND intakeoutputoffset <= 1440 GROUP BY ALL) AS u USING (patientunitstayid)
        WHERE a.urine > 0 AND a.urine <> u.total""",
    # --- ventilation
    "ventilation only from apacheapsvar.intubated": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__ventilation_evidence
        WHERE apache_intubated AND NOT apache_intubated_day1 AND NOT airway_charted_day1""",
    "ventilation only from apachepredvar.oobintubday1": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__ventilation_evidence
        WHERE apache_intubated_day1 AND NOT apache_intubated AND NOT airway_charted_day1""",
    "ventilation only from respiratorycare": """
        SELECT COUNT(*) FROM eicu_derived.int_eicu__ventilation_evidence
        WHERE airway_charted_day1 AND NOT apache_intubated AND NOT apache_intubated_day1""",
    "each respiratorycare field alone in the window": """
        SELECT COUNT(*) = 5 FROM (
            SELECT 'airwaytype' FROM eicu_crd.respiratorycare WHERE airwaytype IS NOT NULL AND airwaysize IS NULL AND cuffpressure IS NULL
            UNION SELECT 'airwaysize' FROM eicu_crd.respiratorycare WHERE airwaysize IS NOT NULL AND airwaytype IS NULL
            UNION SELECT 'airwayposition' FROM eicu_crd.respiratorycare WHERE airwayposition IS NOT NULL AND airwaytype IS NULL
            UNION SELECT 'cuffpressure' FROM eicu_crd.respiratorycare WHERE cuffpressure IS NOT NULL AND airwaytype IS NULL
            UNION SELECT 'setapneatv' FROM eicu_crd.respiratorycare WHERE setapneatv IS NOT NULL AND airwaytype IS NULL)""",
    "respiratorycare rows that do not count (no airway fields, or outside the window)": """
        SELECT (COUNT(*) FILTER (WHERE airwaytype IS NULL AND airwaysize IS NULL AND airwayposition IS NULL
                                   AND cuffpressure IS NULL AND setapneatv IS NULL) > 0)
           AND (COUNT(*) FILTER (WHERE airwaytype IS NOT NULL AND (respcarestatusoffset <= 0 OR respcarestatusoffset > 1440)) > 0)
        FROM eicu_crd.respiratorycare""",
    # --- elective surgery
    "elective surgery from both sources": """
        SELECT COUNT(DISTINCT (COALESCE(a.electivesurgery, -9), p.unitadmitsource = 'Emergency Department')) >= 6
        FROM eicu_crd.patient AS p LEFT JOIN eicu_crd.apachepredvar AS a USING (patientunitstayid)""",
    "stays without APACHE rows": """
        SELECT COUNT(*) FROM eicu_crd.patient AS p
        WHERE p.patientunitstayid NOT IN (SELECT patientunitstayid FROM eicu_crd.apachepredvar)""",
    # --- pre-ICU length of stay
    "pre-ICU length of stay on every band edge": """
        SELECT COUNT(DISTINCT hospitaladmitoffset) >= 6 FROM eicu_crd.patient
        WHERE hospitaladmitoffset IN (-10, -11, -296, -297, -1440, -1441, -18708, -18709)""",
}


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_synthetic_data_reaches_branch(eicu_db: Path, branch: str) -> None:
    value = _query(eicu_db, BRANCHES[branch]).iat[0, 0]
    assert value is True or (not isinstance(value, bool) and value > 0), branch


SEEDS_DIR = Path(__file__).resolve().parent.parent / "seeds" / "eicu"
URINE = original_facts.facts()["urine_cellpaths"]


def _seed_rows(name: str) -> list[dict[str, str]]:
    with (SEEDS_DIR / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_urine_cell_paths_seed_holds_the_original_exact_paths() -> None:
    """The seed's exact paths are the original's list, byte for byte (125 of them)."""
    exact = {r["cellpath_pattern"] for r in _seed_rows("eicu_urine_output_cellpaths.csv") if r["match_type"] == "exact"}
    assert sorted(exact) == URINE["exact"] and len(exact) == 125


def test_urine_cell_paths_seed_holds_the_original_patterns() -> None:
    patterns = sorted([r["match_type"].upper(), r["cellpath_pattern"]]
                      for r in _seed_rows("eicu_urine_output_cellpaths.csv") if r["match_type"] != "exact")
    assert patterns == URINE["patterns"] and len(patterns) == 6


def test_urine_cell_path_exclusions_are_the_original_ones() -> None:
    excluded = sorted(r["excluded_substring"] for r in _seed_rows("eicu_urine_output_cellpath_exclusions.csv"))
    assert excluded == URINE["excluded_substrings"] == ["ir", "or", "pacu"]
