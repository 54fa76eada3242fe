"""The synthetic eICU generator: official schema, determinism, eICU conventions."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from m4agent.data.schema import EICU
from m4agent.data.synth import synthesize
from m4agent.data.synth.eicu import write_database

PATIENTS = 60


@pytest.fixture(scope="module")
def eicu_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("eicu_synth")
    return synthesize("eicu", data_dir, patients=PATIENTS, seed=7)


def _contents(db: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {name: con.execute(f"SELECT * FROM {name} ORDER BY ALL").fetchall() for name in EICU}
    finally:
        con.close()


def test_every_official_table_with_official_columns_and_types(eicu_db: Path) -> None:
    con = duckdb.connect(str(eicu_db), read_only=True)
    try:
        for name, table in EICU.items():
            rows = con.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
                [table.schema, table.name],
            ).fetchall()
            assert rows == [(c.name, c.type) for c in table.columns], name
            assert con.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0] > 0, f"{name} is empty"
    finally:
        con.close()


def test_same_seed_same_contents_other_seed_differs(tmp_path: Path, eicu_db: Path) -> None:
    again = tmp_path / "again.duckdb"
    other = tmp_path / "other.duckdb"
    write_database(again, patients=PATIENTS, seed=7)
    write_database(other, patients=PATIENTS, seed=8)
    reference = _contents(eicu_db)
    assert _contents(again) == reference
    assert _contents(other)["eicu_crd.patient"] != reference["eicu_crd.patient"]
    assert _contents(other)["eicu_crd.nursecharting"] != reference["eicu_crd.nursecharting"]


# Each query holds one convention of real eICU; it must return true.
CONVENTIONS = {
    "unit stays are unique": "SELECT COUNT(*) = COUNT(DISTINCT patientunitstayid) FROM eicu_crd.patient",
    "a patient has several hospital stays": """SELECT MAX(n) >= 2 FROM (SELECT COUNT(DISTINCT patienthealthsystemstayid)
                                               AS n FROM eicu_crd.patient GROUP BY uniquepid)""",
    "a hospital stay has several unit stays": """SELECT MAX(n) >= 2 FROM (SELECT COUNT(*) AS n FROM eicu_crd.patient
                                                 GROUP BY patienthealthsystemstayid)""",
    "uniquepid looks like 002-33870": "SELECT bool_and(regexp_full_match(uniquepid, '\\d{3}-\\d{4,6}')) FROM eicu_crd.patient",
    "some charting before unit admission": "SELECT MIN(nursingchartoffset) < 0 FROM eicu_crd.nursecharting",
    "hospital admissions long before the unit": "SELECT MIN(hospitaladmitoffset) < -18708 FROM eicu_crd.patient",
    "unit discharge after admission": "SELECT bool_and(unitdischargeoffset > 0) FROM eicu_crd.patient",
    "a later unit stay starts after the earlier one ended": """
        SELECT bool_and(later.hospitaladmitoffset <= earlier.hospitaladmitoffset - earlier.unitdischargeoffset)
        FROM eicu_crd.patient AS earlier
        JOIN eicu_crd.patient AS later
          ON earlier.patienthealthsystemstayid = later.patienthealthsystemstayid
         AND later.unitvisitnumber = earlier.unitvisitnumber + 1""",
    "APACHE codes missing as -1": "SELECT COUNT(*) > 0 FROM eicu_crd.apacheapsvar WHERE urine = -1 OR eyes = -1",
    "infusion drug names carry units": "SELECT bool_and(drugname LIKE '%(%/%)') FROM eicu_crd.infusiondrug",
    "one apacheapsvar row per stay at most": "SELECT COUNT(*) = COUNT(DISTINCT patientunitstayid) FROM eicu_crd.apacheapsvar",
    "one apachepredvar row per stay at most":
        "SELECT COUNT(*) = COUNT(DISTINCT patientunitstayid) FROM eicu_crd.apachepredvar",
}


@pytest.mark.parametrize("convention", list(CONVENTIONS))
def test_eicu_convention_holds(eicu_db: Path, convention: str) -> None:
    con = duckdb.connect(str(eicu_db), read_only=True)
    try:
        assert con.execute(CONVENTIONS[convention]).fetchone()[0] is True
    finally:
        con.close()


def test_eicu_ages_are_text_numbers_over_89_band_and_missing(eicu_db: Path) -> None:
    con = duckdb.connect(str(eicu_db), read_only=True)
    try:
        ages = {r[0] for r in con.execute("SELECT DISTINCT age FROM eicu_crd.patient").fetchall()}
    finally:
        con.close()
    assert "> 89" in ages and ("" in ages or None in ages)
    assert all(a is None or a in ("", "> 89") or a.isdigit() for a in ages)
