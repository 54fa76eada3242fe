"""The eICU references (ref_eicu_gcs, ref_eicu_oasis) against the original M4Bench ground truth.

For two synthetic eICU databases the dbt models are built, then:
- the original `benchmark/ground_truth/gcs.sql` and `oasis.sql` of hannesill/m4 run on the
  same database and are compared with M4Bench's own rules (`benchmark/lib/compare.py`, the
  task's scored columns from its `task.toml`): every column must match on every row. This
  needs the read-only mirror of hannesill/m4 (`$M4_ORIGINAL_REPO`, see
  tests/original_ground_truth.py) and is skipped without it;
- properties that hold without the original (primary key, one row per unit stay, OASIS total
  equals the sum of its components) and branch coverage: the synthetic data must reach every
  branch of the references, so the comparison above cannot pass by luck.
"""

from __future__ import annotations

import csv
import random
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import original_ground_truth as original
import pandas as pd
import pytest

from m4agent.paths import database_path
from m4agent.synth import synthesize

pytestmark = pytest.mark.slow

SEEDS = (3, 11)
PATIENTS = 150
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
        _plant_odd_rows(db, seed)
    # profiles.yml opens the MIMIC-IV database as the main one; these models never read it
    duckdb.connect(str(database_path(data_dir, "mimic-iv"))).close()
    # dbt runs in its own process: in this one, its DuckDB connection would stay attached to the files
    build = ("import sys; from pathlib import Path; from m4agent.dbt_runner import invoke; "
             "invoke(Path(sys.argv[1]), ['build', '--select', '+ref_eicu_gcs +ref_eicu_oasis'])")
    done = subprocess.run([sys.executable, "-c", build, str(data_dir)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return db


def _plant_odd_rows(db: Path, seed: int) -> None:
    """Rows no realistic generator writes: odd number spellings, NULL offsets and categories,
    odd ages and admission sources, LIKE wildcards in paths. The references must still agree
    with the original, because they cast and compare exactly as it does."""
    rng = random.Random(seed)
    numbers = ["7", " 7", "7 ", "7.0", "7.5", "1e1", "", None, "-3", "15.0004", "14.9996", "2.9999", "3",
               "16", "NaN", "inf", "+8", "08", "1,000", "13.5", "36.395", "61.325", "88.5", "99999999999999999999"]
    cells = [("Scores", "Glasgow coma score", "GCS Total"), ("Scores", "Glasgow coma score", "Motor"),
             ("Other Vital Signs and Infusions", "Glasgow coma score", "Verbal"), ("Scores", "Glasgow coma score", "Eyes"),
             ("Other Vital Signs and Infusions", "Score (Glasgow Coma Scale)", "Value"), (None, "Glasgow coma score", "GCS Total"),
             ("Vital Signs", "Heart Rate", "Heart Rate"), ("Vital Signs", "Respiratory Rate", "Respiratory Rate"),
             ("Vital Signs", "Temperature", "Temperature (C)"), ("Scores", "Invasive BP", "Invasive BP Mean"),
             ("Other Vital Signs and Infusions", "MAP (mmHg)", "Value"), ("Vital Signs", "Non-Invasive BP", "Non-Invasive BP Mean")]
    offsets = [None, -361, -360, -1, 0, 1, 700, 1440, 1441]
    pe_prefix = "notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS/"
    paths = [IO_OUT + "Urine", IO_OUT + "FOLEY", IO_OUT + "Foley OR", IO_OUT + "Output Urinary Catheter x", IO_OUT + "urine",
             "FLOWSHEET|Flowsheet Cell Labels|I&O|Output (ml)|foley", None, IO_OUT + "Straight  cath", IO_OUT + "Urine Output (mL)%"]
    con = duckdb.connect(str(db))
    try:
        stays = [r[0] for r in con.execute("SELECT patientunitstayid FROM eicu_crd.patient").fetchall()]
        con.executemany("INSERT INTO eicu_crd.nursecharting VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
            (10**9 + i, rng.choice(stays), rng.choice(offsets), 0, *rng.choice(cells), rng.choice(numbers))
            for i in range(3000)])
        con.executemany("INSERT INTO eicu_crd.physicalexam VALUES (?, ?, ?, ?, ?, ?)", [
            (10**8 + i, rng.choice(stays), rng.choice(offsets),
             pe_prefix + rng.choice(["8", "15", "0", "Verbal Score/4", "%", "_", "ab", "", "123"]), rng.choice(numbers), None)
            for i in range(800)])
        con.executemany("INSERT INTO eicu_crd.intakeoutput VALUES (?, ?, ?, 0, 0, 0, 0, 0, ?, 'x', ?, 'x')", [
            (10**8 + i, rng.choice(stays), rng.choice(offsets), rng.choice(paths), rng.choice([None, 0, 100.5, -50, 700, 3000.25]))
            for i in range(1500)])
        for stay in rng.sample(stays, len(stays) // 4):
            con.execute(
                "UPDATE eicu_crd.patient SET hospitaladmitoffset = ?, age = ?, unitadmitsource = ? WHERE patientunitstayid = ?",
                [rng.choice([None, 5, -10, -11, -296, -297, -18708, -18709]),
                 rng.choice(["> 89", "", None, " 45", "36.5", "abc", "89", "90", "23"]),
                 rng.choice([None, "Emergency Department", "Emergency Department ", "Floor"]), stay])
    finally:
        con.close()


@pytest.fixture(scope="module", params=SEEDS, ids=[f"seed{s}" for s in SEEDS])
def eicu_db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic eICU database with the eICU models built into it by dbt."""
    return _synthesize_and_build(tmp_path_factory.mktemp(f"eicu_refs_{request.param}"), request.param)


@pytest.fixture(scope="module")
def odd_eicu_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Like ``eicu_db``, with odd rows planted before the build (needs the original to be useful)."""
    if not original.mirror_available():
        pytest.skip(f"hannesill/m4 mirror not found at {original.ORIGINAL_REPO} (set M4_ORIGINAL_REPO); "
                    "the comparison with the original ground truth needs it")
    return _synthesize_and_build(tmp_path_factory.mktemp("eicu_refs_odd"), 5, plant=True)


def _query(db: Path, sql: str) -> pd.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).df()
    finally:
        con.close()


# --------------------------------------------------------------------------
# Against the original ground truth (needs the hannesill/m4 mirror)
# --------------------------------------------------------------------------
def _mirror_file(path: str) -> str:
    if not original.mirror_available():
        pytest.skip(f"hannesill/m4 mirror not found at {original.ORIGINAL_REPO} (set M4_ORIGINAL_REPO); "
                    "the comparison with the original ground truth needs it")
    return original.original_file(path)


def _assert_matches_original(eicu_db: Path, task: str, tmp_path: Path) -> None:
    key, model = TASKS[task]
    sql = _mirror_file(f"benchmark/ground_truth/{key}.sql")
    evaluation = original.original_task(task)["evaluation"]
    compare = original.original_compare()
    keys = evaluation["key_columns"]

    truth = _query(eicu_db, sql)
    ours = _query(eicu_db, f"SELECT * FROM {model}")
    assert len(truth) > 100
    assert set(evaluation["required_columns"]) <= set(ours.columns)
    # written the way the original writes its ground-truth CSVs (sorted by the keys)
    truth_csv, ours_csv = tmp_path / "truth.csv", tmp_path / "ours.csv"
    truth.sort_values(keys, kind="mergesort").to_csv(truth_csv, index=False)
    ours[evaluation["required_columns"]].sort_values(keys, kind="mergesort").to_csv(ours_csv, index=False)

    scored = compare.scored_value_columns(evaluation)
    result = compare.compare_derived_tables(str(ours_csv), str(truth_csv), keys, scored,
                                            evaluation.get("tolerance") or None)
    rates = {column: result[column]["match_rate"] for column in scored}
    examples = {column: result[column]["mismatched_examples"] for column in scored if rates[column] < 1}
    assert rates == dict.fromkeys(scored, 1.0), examples
    assert result["__meta__"]["extra_keys"] == 0
    assert result["__meta__"]["agent_unique_keys"] == len(truth)

    # and without the original's comparison code: identical rows, value by value
    merged = truth.merge(ours, on=keys, how="outer", suffixes=("_truth", "_ours"), indicator=True)
    assert (merged["_merge"] == "both").all()
    for column in [c for c in evaluation["required_columns"] if c not in keys]:
        left, right = merged[f"{column}_truth"], merged[f"{column}_ours"]
        if column == "uniquepid":
            assert (left == right).all(), column
        else:
            assert (pd.to_numeric(left) == pd.to_numeric(right)).all(), column


@pytest.mark.parametrize("task", list(TASKS))
def test_matches_original_ground_truth(eicu_db: Path, task: str, tmp_path: Path) -> None:
    _assert_matches_original(eicu_db, task, tmp_path)


@pytest.mark.parametrize("task", list(TASKS))
def test_matches_original_ground_truth_on_odd_rows(odd_eicu_db: Path, task: str, tmp_path: Path) -> None:
    _assert_matches_original(odd_eicu_db, task, tmp_path)


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


def test_urine_cell_paths_seed_is_the_original_list() -> None:
    """The seed holds exactly the original's urine paths and patterns, byte for byte."""
    sql = _mirror_file("benchmark/ground_truth/oasis.sql")
    start = sql.index("WHEN cellpath IN (")
    listed = sql[start:sql.index(") THEN 1", start)]
    exact = {value.replace("''", "'") for value in re.findall(r"'((?:[^']|'')*)'", listed)}
    patterns = set(re.findall(r"cellpath (I?LIKE) '([^']*)'", sql[sql.index(") THEN 1", start):]))
    seed_file = Path(__file__).resolve().parent.parent / "seeds" / "eicu" / "eicu_urine_output_cellpaths.csv"
    with seed_file.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["cellpath_pattern"] for r in rows if r["match_type"] == "exact"} == exact
    assert {(r["match_type"].upper(), r["cellpath_pattern"]) for r in rows if r["match_type"] != "exact"} == patterns
    assert len(exact) == 125 and len(patterns) == 6
    excluded = set(re.findall(r"LOWER\(cellpath\) NOT LIKE '%([a-z]+)%'", sql))
    with (seed_file.parent / "eicu_urine_output_cellpath_exclusions.csv").open(newline="") as f:
        assert {r["excluded_substring"] for r in csv.DictReader(f)} == excluded == {"pacu", "or", "ir"}
