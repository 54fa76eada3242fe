"""Count the passes over MIMIC-IV's big event tables in one reference build, from DuckDB's profiler.

Usage: ``python benchmarks/profile_event_scans.py [--data-dir DIR | --patients 300]
[--select SELECTION] [--models-only] [--project-dir CHECKOUT]``

Issue 28 asks that chartevents, labevents, inputevents, outputevents and procedureevents
each be scanned once per build: one narrow model per table (``int_mimiciv_events__*_used``)
reads the source, every concept reads the narrow model. ``tests/test_event_scans.py`` checks
that on the dbt graph; this script checks it on the queries DuckDB actually runs.

It runs ``dbt build`` (``--models-only``: without data tests and unit tests) in this process,
with DuckDB's profiler writing one JSON profile per statement dbt sends (dbt-duckdb's cursor
is wrapped for the run), then reads every table-scan operator of every profile and prints,
per big source table, how many scans statements of models and of data tests made, and the
rows they read. The narrow tables' own scans are listed too. Exits 1 when models scan a big
source table more than once.

Without ``--data-dir`` a synthetic MIMIC-IV of ``--patients`` patients is written to a
temporary folder first (removed at the end). The data directory's database is modified as
``m4agent reference build`` would modify it.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BIG_TABLES = ("chartevents", "labevents", "inputevents", "outputevents", "procedureevents")
SOURCE_SCHEMAS = {"chartevents": "mimiciv_icu", "labevents": "mimiciv_hosp", "inputevents": "mimiciv_icu",
                  "outputevents": "mimiciv_icu", "procedureevents": "mimiciv_icu"}


@contextmanager
def profiled_statements(profile_dir: Path) -> Iterator[list[tuple[Path, str]]]:
    """While active, every statement dbt-duckdb executes writes its JSON profile to ``profile_dir``.

    Yields the list of (profile file, statement) pairs, filled as statements run.
    """
    from dbt.adapters.duckdb.environments import local

    statements: list[tuple[Path, str]] = []
    lock = threading.Lock()
    original = local.DuckDBCursorWrapper.execute

    def execute(self: object, sql: str, bindings: object = None) -> object:
        with lock:
            path = profile_dir / f"{len(statements):06d}.json"
            statements.append((path, sql))
        cursor = self._cursor  # type: ignore[attr-defined]
        # Off first: with profiling on, these settings would be profiled themselves and
        # overwrite the previous statement's file (a statement on profiling off is not).
        cursor.execute("PRAGMA disable_profiling")
        cursor.execute("SET enable_profiling = 'json'")
        cursor.execute(f"SET profiling_output = '{path}'")
        return original(self, sql, bindings)

    local.DuckDBCursorWrapper.execute = execute
    try:
        yield statements
    finally:
        local.DuckDBCursorWrapper.execute = original


def _scans(operator: dict) -> Iterator[tuple[str, int]]:
    """(table, rows scanned) of every table scan in a profile's operator tree."""
    info = operator.get("extra_info") or {}
    table = info.get("Table") if isinstance(info, dict) else None
    if table and "SCAN" in operator.get("name", ""):
        yield table, int(operator.get("rows_scanned", operator.get("operator_cardinality", 0)) or 0)
    for child in operator.get("children", []):
        yield from _scans(child)


def _kind(sql: str) -> str:
    """model, test or other: from dbt's query comment (its node id), else from the statement."""
    node = re.search(r'"node_id": "(model|test|unit_test|seed)\.', sql)
    if node:
        return {"unit_test": "test", "seed": "other"}.get(node.group(1), node.group(1))
    lowered = sql.lower()
    if "dbt_internal_test" in lowered or "dbt_internal_unit_test" in lowered:
        return "test"
    if re.search(r"\bcreate\s+(or\s+replace\s+)?(temporary\s+)?(table|view)\b", lowered):
        return "model"
    return "other"


def count_scans(statements: list[tuple[Path, str]]) -> dict[str, dict[str, list[int]]]:
    """table name -> statement kind -> rows read by each scan."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for path, sql in statements:
        if not path.exists():
            continue  # statements that produce no profile (transaction control)
        profile = json.loads(path.read_text())
        for child in profile.get("children", []) + profile.get("operator", []):
            for table, rows in _scans(child):
                counts[table.split(".", 1)[-1] if table.count(".") == 2 else table][_kind(sql)].append(rows)
    return counts


def _synthesize(patients: int, data_dir: Path) -> None:
    from m4agent.data.synth import synthesize

    synthesize("mimic-iv", data_dir, patients=patients, seed=42)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="data directory holding mimic_iv.duckdb")
    parser.add_argument("--patients", type=int, default=300, help="synthetic patients when no --data-dir")
    parser.add_argument("--select", default=None, help="dbt selection (default: everything MIMIC-IV serves)")
    parser.add_argument("--models-only", action="store_true", help="leave data tests and unit tests out")
    parser.add_argument("--project-dir", type=Path, default=None,
                        help="another checkout of the dbt project (e.g. an older commit, to compare)")
    args = parser.parse_args()

    from m4agent.dbt.runner import invoke

    temporary = None if args.data_dir else Path(tempfile.mkdtemp(prefix="m4a-scans-"))
    data_dir = args.data_dir or temporary
    assert data_dir is not None
    profile_dir = Path(tempfile.mkdtemp(prefix="m4a-profiles-"))
    try:
        if temporary:
            _synthesize(args.patients, data_dir)
        dbt_args = ["build", "--exclude", "source:eicu_crd+"]
        if args.select:
            dbt_args += ["--select", args.select]
        if args.models_only:
            dbt_args += ["--exclude-resource-type", "test", "unit_test"]
        with profiled_statements(profile_dir) as statements:
            invoke(data_dir, dbt_args, project_dir=args.project_dir)
        counts = count_scans(statements)
    finally:
        shutil.rmtree(profile_dir, ignore_errors=True)
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)

    print(f"{len(statements)} statements profiled")
    print(f"{'table':45} {'model scans':>11} {'test scans':>10} {'rows read by models':>20}")
    failed = False
    for table in BIG_TABLES:
        for name in (f"{SOURCE_SCHEMAS[table]}.{table}", f"mimiciv_events.int_mimiciv_events__{table}_used"):
            kinds = counts.get(name, {})
            models, tests = kinds.get("model", []), kinds.get("test", [])
            print(f"{name:45} {len(models):>11} {len(tests):>10} {sum(models):>20,}")
            if name.startswith("mimiciv_") and not name.startswith("mimiciv_events") and len(models) > 1:
                failed = True
    if failed:
        print("a big source table is scanned more than once by the models", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
