"""A reference is a function of its input: row order and thread count change nothing.

One synthetic MIMIC-IV and eICU pair with the edge cases planted (ties, duplicates at
one charttime, simultaneous blood gases: every place where an unordered pick would show)
is built twice: once as the generator wrote it, with one dbt thread, and once with
every source table's rows rewritten in another physical order, with two threads.
``reference export`` must then write byte-identical CSVs for all 28 tasks.

Slow (two dbt builds of the references); ``M4AGENT_DETERMINISM_PATIENTS`` sets the size
(default 30, about a minute per build on two cores).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest

from m4agent.data.synth import synthesize
from m4agent.dbt.runner import build
from m4agent.paths import database_path
from m4agent.reference_export import export
from m4agent.registry import all_tasks

pytestmark = pytest.mark.slow

TASKS = sorted(all_tasks())
PATIENTS = int(os.environ.get("M4AGENT_DETERMINISM_PATIENTS", "30"))
SEED = 11
SOURCE_SCHEMAS = {"mimic-iv": ("mimiciv_hosp", "mimiciv_icu"), "eicu": ("eicu_crd",)}


def shuffle_rows(db: Path, schemas: tuple[str, ...], salt: str = "shuffle") -> None:
    """Rewrite every table of ``schemas`` in ``db`` with its rows in another physical order
    (sorted by a hash of the whole row salted with ``salt``), keeping the table definitions."""
    con = duckdb.connect(str(db))
    try:
        tables = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE list_contains(?, schema_name)",
            [list(schemas)],
        ).fetchall()
        for schema, table in tables:
            name = f'"{schema}"."{table}"'
            con.execute(f"CREATE TEMP TABLE shuffled AS SELECT * FROM {name} AS r ORDER BY hash(r, ?)", [salt])
            con.execute(f"DELETE FROM {name}")
            con.execute(f"INSERT INTO {name} SELECT * FROM shuffled")
            con.execute("DROP TABLE shuffled")
        con.execute("CHECKPOINT")
    finally:
        con.close()


def _first_rows(db: Path, table: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(f"SELECT * FROM {table} LIMIT 20").fetchall()
    finally:
        con.close()


def _build_and_export(data_dir: Path, threads: int) -> dict[str, bytes]:
    build(data_dir, select="+marts.reference", threads=threads)
    out = data_dir / "exports"
    return {name: export(name, data_dir, out / f"{name}.csv").read_bytes() for name in TASKS}


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(as written, shuffled): two data directories holding the same rows."""
    written = tmp_path_factory.mktemp("determinism_written")
    for dataset in SOURCE_SCHEMAS:
        synthesize(dataset, written, patients=PATIENTS, seed=SEED, edge_cases=True)
    shuffled = tmp_path_factory.mktemp("determinism_shuffled")
    for dataset, schemas in SOURCE_SCHEMAS.items():
        shutil.copyfile(database_path(written, dataset), database_path(shuffled, dataset))
        shuffle_rows(database_path(shuffled, dataset), schemas)
    return written, shuffled


@pytest.fixture(scope="module")
def exports(sources: tuple[Path, Path]) -> tuple[dict[str, bytes], dict[str, bytes]]:
    written, shuffled = sources
    return _build_and_export(written, threads=1), _build_and_export(shuffled, threads=2)


def test_shuffled_copy_holds_the_same_rows_in_another_order(sources: tuple[Path, Path]) -> None:
    written, shuffled = sources
    for dataset, table in (("mimic-iv", "mimiciv_icu.chartevents"), ("mimic-iv", "mimiciv_hosp.labevents"),
                           ("eicu", "eicu_crd.nursecharting")):
        a, b = database_path(written, dataset), database_path(shuffled, dataset)
        assert _first_rows(a, table) != _first_rows(b, table), f"{table} was not reordered"
        count = f"SELECT COUNT(*), SUM(hash(r)) FROM {table} AS r"
        with duckdb.connect(str(a), read_only=True) as con_a, duckdb.connect(str(b), read_only=True) as con_b:
            assert con_a.execute(count).fetchone() == con_b.execute(count).fetchone(), f"{table} rows differ"


@pytest.mark.parametrize("task_name", TASKS)
def test_export_is_identical_across_row_order_and_threads(
    task_name: str, exports: tuple[dict[str, bytes], dict[str, bytes]]
) -> None:
    one_thread_written, two_threads_shuffled = exports
    first, second = one_thread_written[task_name], two_threads_shuffled[task_name]
    assert first.count(b"\n") > 1, f"{task_name}: empty reference"
    if first != second:
        a, b = first.decode().splitlines(), second.decode().splitlines()
        differing = [(x, y) for x, y in zip(a, b, strict=False) if x != y][:3]
        pytest.fail(f"{task_name}: {len(a)} vs {len(b)} lines; first differing lines {differing}")
