"""The synthetic eICU generator: official schema, determinism, eICU conventions."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from m4agent.schema import EICU
from m4agent.synth import synthesize
from m4agent.synth.eicu import write_database

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


def test_eicu_conventions(eicu_db: Path) -> None:
    con = duckdb.connect(str(eicu_db), read_only=True)

    def one(sql: str) -> object:
        return con.execute(sql).fetchone()[0]

    try:
        # unit stays are unique; patients have several hospital stays, hospital stays several unit stays
        assert one("SELECT COUNT(*) = COUNT(DISTINCT patientunitstayid) FROM eicu_crd.patient")
        assert one("SELECT MAX(n) FROM (SELECT COUNT(DISTINCT patienthealthsystemstayid) AS n "
                   "FROM eicu_crd.patient GROUP BY uniquepid)") >= 2
        assert one("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM eicu_crd.patient "
                   "GROUP BY patienthealthsystemstayid)") >= 2
        assert one("SELECT bool_and(regexp_full_match(uniquepid, '\\d{3}-\\d{4,6}')) FROM eicu_crd.patient")
        # ages are text: numbers, '> 89' and missing
        ages = {r[0] for r in con.execute("SELECT DISTINCT age FROM eicu_crd.patient").fetchall()}
        assert "> 89" in ages and ("" in ages or None in ages)
        assert all(a is None or a in ("", "> 89") or a.isdigit() for a in ages)
        # offsets are minutes from unit admission, some before it
        assert one("SELECT MIN(nursingchartoffset) FROM eicu_crd.nursecharting") < 0
        assert one("SELECT MIN(hospitaladmitoffset) FROM eicu_crd.patient") < -18708
        assert one("SELECT bool_and(unitdischargeoffset > 0) FROM eicu_crd.patient")
        # a later unit stay of a hospital stay starts after the earlier one ended
        assert one("""
            SELECT bool_and(later.hospitaladmitoffset <= earlier.hospitaladmitoffset - earlier.unitdischargeoffset)
            FROM eicu_crd.patient AS earlier
            JOIN eicu_crd.patient AS later
              ON earlier.patienthealthsystemstayid = later.patienthealthsystemstayid
             AND later.unitvisitnumber = earlier.unitvisitnumber + 1""")
        # APACHE codes missing as -1; infusion drug names carry units
        assert one("SELECT COUNT(*) FROM eicu_crd.apacheapsvar WHERE urine = -1 OR eyes = -1") > 0
        assert one("SELECT bool_and(drugname LIKE '%(%/%)') FROM eicu_crd.infusiondrug")
        # one APACHE row per stay at most (the references rely on it)
        for table in ("apacheapsvar", "apachepredvar"):
            assert one(f"SELECT COUNT(*) = COUNT(DISTINCT patientunitstayid) FROM eicu_crd.{table}")
    finally:
        con.close()
