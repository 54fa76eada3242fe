"""Our `mimiciv_derived` against m4-infra's, table by table, on synthetic MIMIC-IV.

For each seed, one synthetic MIMIC-IV database is written (with the shapes of real data:
stay times to the second, specimens drawn together, ties) and copied: dbt builds our
derived layer into the original, m4-infra's concept files (the snapshot of the mimic-code
concepts that built the benchmark's references) build theirs into the copy, with each of
its arbitrary picks (conformance_exceptions.ORIGINAL_TIES) left only the one our rule
makes, which is one of its possible answers. Every one of m4-infra's 63 tables is then a
separate test result: same column names in the same order, same types, and the same
multiset of rows (doubles equal to 1e-9 relative, NULLs equal). Known differences are
listed, with their reasons, in tests/conformance_exceptions.py and nowhere else.

Seeds come from M4AGENT_CONFORMANCE_SEEDS (comma-separated; default "1,2") so CI can
check seeds that development did not use. One more dataset carries the generator's edge
cases (``edge_cases=True``: values at every cut-point, negative and zero values,
duplicates at one charttime, ties, window edges, unit variants, urine chartings off the
minute; M4AGENT_CONFORMANCE_EDGE_PATIENTS patients, default 60): every table must match
there too, up to the exceptions.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from conformance_exceptions import EXCEPTIONS, exception_for
from original_ground_truth import materialize_m4_derived

from m4agent.dbt.runner import invoke
from m4agent.errors import M4AgentError
from m4agent.paths import database_path

pytestmark = pytest.mark.slow

SEEDS = [int(s) for s in os.environ.get("M4AGENT_CONFORMANCE_SEEDS", "1,2").split(",") if s.strip()]
PATIENTS = int(os.environ.get("M4AGENT_CONFORMANCE_PATIENTS", "200"))
EDGE_SEED = 3
EDGE_PATIENTS = int(os.environ.get("M4AGENT_CONFORMANCE_EDGE_PATIENTS", "60"))


@dataclass(frozen=True)
class Dataset:
    seed: int
    patients: int
    edge_cases: bool

    @property
    def label(self) -> str:
        return f"edge{self.seed}" if self.edge_cases else f"seed{self.seed}"


DATASETS = [Dataset(s, PATIENTS, False) for s in SEEDS] + [Dataset(EDGE_SEED, EDGE_PATIENTS, True)]
REL_TOL = 1e-9
ABS_TOL = 1e-12  # for values that should be zero but carry floating-point residue
SHOWN_ROWS = 5


def _m4_tables() -> list[str]:
    from m4.core.derived.builtins import get_execution_order

    return [path.stem for path in get_execution_order("mimic-iv")]


TABLES = sorted(_m4_tables())


@dataclass(frozen=True)
class BuiltPair:
    seed: int
    data_dir: Path
    ours: Path
    theirs: Path
    build_error: str | None  # our dbt run's failure, if any (the tables it built are still compared)


def _release_dbt_database() -> None:
    """Close the DuckDB connection dbt-duckdb keeps open in this process after a run.

    dbt-duckdb caches one environment (and its connection to the data directory's
    database) per process; while it lives, DuckDB refuses a read-only connection to
    the same file.
    """
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    with DuckDBConnectionManager._LOCK:
        if DuckDBConnectionManager._ENV is not None:
            DuckDBConnectionManager._ENV.close()
        DuckDBConnectionManager.close_all_connections()


@pytest.fixture(scope="module", params=DATASETS, ids=[d.label for d in DATASETS])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BuiltPair]:
    from m4agent.data.synth import synthesize

    dataset: Dataset = request.param
    seed = dataset.seed
    data_dir = tmp_path_factory.mktemp(f"conformance_{dataset.label}")
    ours = synthesize("mimic-iv", data_dir, patients=dataset.patients, seed=seed, edge_cases=dataset.edge_cases)
    theirs = materialize_m4_derived(ours, data_dir / "m4_infra" / "mimic_iv.duckdb", resolve_ties=True)

    # seed + run rather than build: a failing data test must not skip the models
    # downstream of it, or their conformance would go unchecked
    build_error = None
    try:
        invoke(data_dir, ["seed", "--select", "+path:models/intermediate/mimiciv"])
        invoke(data_dir, ["run", "--select", "+path:models/intermediate/mimiciv"])
    except M4AgentError as error:
        build_error = str(error)
    finally:
        _release_dbt_database()
    assert ours == database_path(data_dir, "mimic-iv")
    yield BuiltPair(seed, data_dir, ours, theirs, build_error)


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = 'mimiciv_derived' AND table_name = ? ORDER BY ordinal_position",
        [table],
    ).fetchall()


def _normalise(value: object) -> object:
    """A hashable value that equal-within-tolerance doubles usually share (10 significant digits)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return float(f"{value:.10g}")
    if isinstance(value, list):
        return tuple(_normalise(v) for v in value)
    return value


def _close(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return a == b
    return a == b


def _rows(path: Path, table: str) -> list[tuple]:
    exception = exception_for(table)
    query = exception.compare_sql.format(table=f"mimiciv_derived.{table}") if exception else (
        f"SELECT * FROM mimiciv_derived.{table}")
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(f"SELECT * FROM ({query}) AS compared ORDER BY ALL NULLS FIRST").fetchall()
    finally:
        con.close()


def _row_difference(theirs: list[tuple], ours: list[tuple]) -> str | None:
    """None when the two sorted row lists match; otherwise a readable description."""
    if len(theirs) == len(ours) and all(
        len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
        for a, b in zip(theirs, ours, strict=True)
    ):
        return None
    counted_theirs = Counter(tuple(_normalise(v) for v in row) for row in theirs)
    counted_ours = Counter(tuple(_normalise(v) for v in row) for row in ours)
    only_theirs = list((counted_theirs - counted_ours).elements())
    only_ours = list((counted_ours - counted_theirs).elements())
    if not only_theirs and not only_ours:
        return None  # equal up to rounding that moved rows in the sort order
    lines = [
        f"m4-infra has {len(theirs)} rows, ours {len(ours)}; "
        f"{len(only_theirs)} only in m4-infra, {len(only_ours)} only in ours",
        *(f"  m4-infra only: {row}" for row in only_theirs[:SHOWN_ROWS]),
        *(f"  ours only:     {row}" for row in only_ours[:SHOWN_ROWS]),
    ]
    return "\n".join(lines)


@pytest.mark.parametrize("table", TABLES)
def test_table_matches_m4_infra(built: BuiltPair, table: str) -> None:
    theirs_con = duckdb.connect(str(built.theirs), read_only=True)
    ours_con = duckdb.connect(str(built.ours), read_only=True)
    try:
        theirs_columns = _columns(theirs_con, table)
        ours_columns = _columns(ours_con, table)
    finally:
        theirs_con.close()
        ours_con.close()
    assert theirs_columns, f"m4-infra did not build {table}"
    hint = f"\nour dbt run failed: {built.build_error}" if built.build_error else ""
    assert ours_columns, f"mimiciv_derived.{table} missing from our build (seed {built.seed}){hint}"
    assert ours_columns == theirs_columns, "column names, order or types differ"

    difference = _row_difference(_rows(built.theirs, table), _rows(built.ours, table))
    assert difference is None, f"mimiciv_derived.{table} (seed {built.seed}) differs:\n{difference}"


def test_dbt_tests_of_derived_models_pass(built: BuiltPair) -> None:
    """The derived models' unit tests hold, and no data test errors, on this synthetic
    database (data tests on the derived layer warn; see dbt_project.yml)."""
    assert built.build_error is None, built.build_error
    try:
        invoke(built.data_dir, ["test", "--select", "path:models/intermediate/mimiciv"])
    finally:
        _release_dbt_database()


def test_exceptions_name_real_tables_once() -> None:
    names = [e.name for e in EXCEPTIONS]
    assert len(names) == len(set(names))
    assert {e.table for e in EXCEPTIONS} <= set(TABLES)
    for e in EXCEPTIONS:
        assert e.reason.strip() and "{table}" in e.compare_sql


def test_original_ties_resolve_after_a_real_table() -> None:
    """A tie's resolution runs on the sources or after one of m4-infra's tables: a misspelt table
    would leave the original's pick unresolved and the comparison at the mercy of its engine. A tie
    without a resolution lists the original's possible answers instead."""
    from conformance_exceptions import ORIGINAL_TIES

    assert len({tie.name for tie in ORIGINAL_TIES}) == len(ORIGINAL_TIES)
    for tie in ORIGINAL_TIES:
        assert tie.resolve_after is None or tie.resolve_after in TABLES, tie.name
        assert tie.reason.strip() and tie.evidence.strip(), tie.name
        assert bool(tie.resolution) != bool(tie.possible_answers), f"{tie.name}: a resolution or possible answers"
        assert tie.resolution or tie.resolve_after is None, tie.name
