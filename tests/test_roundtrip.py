"""Database -> PhysioNet csv.gz layout -> `data load` -> the same database.

The exporter writes what PhysioNet ships and the loader reads what PhysioNet
ships, so a round trip must reproduce every table exactly: same column names,
order and types, and the same multiset of rows (NULL and empty string kept
apart). Checked on the synthetic data of both datasets and on the tiny
hand-shaped fixture (quotes, commas, line breaks, extremes).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import duckdb
import pytest
from fixtures.physionet_tiny import write_tiny_database
from support.physionet_export import export

from m4agent.data.load import load
from m4agent.data.schema import tables


def _columns(con: duckdb.DuckDBPyConnection, catalog: str, schema: str, table: str) -> list[tuple]:
    return con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_catalog = ? AND table_schema = ? AND table_name = ? ORDER BY ordinal_position",
        [catalog, schema, table],
    ).fetchall()


def assert_same_tables(original: Path, loaded: Path, dataset: str) -> dict[str, int]:
    """Every schema table of ``loaded`` equals the one in ``original``; returns row counts."""
    con = duckdb.connect(str(loaded), read_only=True)
    counts = {}
    try:
        con.execute(f"ATTACH '{original}' AS original (READ_ONLY)")
        catalog = loaded.stem
        for table in tables(dataset).values():
            expected = _columns(con, "original", table.schema, table.name)
            assert expected, f"{table.qualified} missing from the original database"
            assert _columns(con, catalog, table.schema, table.name) == expected, table.qualified
            mine, theirs = f"{catalog}.{table.qualified}", f"original.{table.qualified}"
            n_mine = con.execute(f"SELECT count(*) FROM {mine}").fetchone()[0]
            n_theirs = con.execute(f"SELECT count(*) FROM {theirs}").fetchone()[0]
            assert n_mine == n_theirs, table.qualified
            for left, right in ((mine, theirs), (theirs, mine)):
                diff = con.execute(
                    f"SELECT count(*) FROM (SELECT * FROM {left} EXCEPT ALL SELECT * FROM {right})"
                ).fetchone()[0]
                assert diff == 0, f"{table.qualified}: {diff} rows of {left} not in {right}"
            counts[table.qualified] = n_mine
    finally:
        con.close()
    return counts


@pytest.mark.parametrize("dataset", ["mimic-iv", "eicu"])
def test_tiny_fixture_round_trip(dataset: str, tmp_path: Path) -> None:
    original = write_tiny_database(tmp_path / "original.duckdb", dataset)
    folder = export(original, dataset, tmp_path / "physionet")
    loaded = load(dataset, folder, tmp_path / "data")
    counts = assert_same_tables(original, loaded, dataset)
    assert all(n == 3 for n in counts.values())


def test_export_writes_physionet_text(tmp_path: Path) -> None:
    original = write_tiny_database(tmp_path / "original.duckdb", "mimic-iv")
    folder = export(original, "mimic-iv", tmp_path / "physionet")
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.csv.gz")) == sorted(
        f"{t.file_stem}.csv.gz" for t in tables("mimic-iv").values()
    )
    with gzip.open(folder / "hosp" / "patients.csv.gz", "rt") as fh:
        lines = fh.read().splitlines()
    assert lines[0] == "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod"
    # dod is a DATE: plain YYYY-MM-DD; the third row's dod is NULL: an empty last field.
    assert lines[1].endswith(",2150-02-05") and lines[-1].endswith(",")
    with gzip.open(folder / "hosp" / "admissions.csv.gz", "rt") as fh:
        second = fh.read().splitlines()[2]
    assert second.split(",")[2] == "2150-01-16 07:13:00"  # admittime: seconds, no fraction
    assert ',"",' in second  # an empty string stays distinguishable from NULL
    eicu = export(write_tiny_database(tmp_path / "e.duckdb", "eicu"), "eicu", tmp_path / "e")
    assert (eicu / "nurseCharting.csv.gz").is_file() and (eicu / "apachePredVar.csv.gz").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["mimic-iv", "eicu"])
def test_synthetic_round_trip(dataset: str, tmp_path: Path) -> None:
    from m4agent.data.synth import synthesize

    original = synthesize(dataset, tmp_path / "synth", patients=40, seed=7)
    folder = export(original, dataset, tmp_path / "physionet")
    loaded = load(dataset, folder, tmp_path / "data")
    counts = assert_same_tables(original, loaded, dataset)
    assert sum(counts.values()) > 1000
