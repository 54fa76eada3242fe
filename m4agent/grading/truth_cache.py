"""Reuse the rendered truth of the previous grading call when nothing it depends on changed.

The truth models (``int_grading__truth_tasks``, ``_rows``, ``_profiles``, ``_values``) render
the batch's references as M4Bench's ground-truth CSVs hold them: the work
M4Bench does once, when it exports its ground truth. They depend on the batch's
task definitions (``agent_outputs.task_settings`` and ``task_columns``), the
content of the reference tables and the SQL that renders them. A fingerprint of
those three is kept beside the agent outputs; when the next call's fingerprint
is the same and the tables are there, dbt is told to leave them out.

The fingerprint reads every reference row (a sum of row hashes: tens of
milliseconds for the largest reference), so a rebuilt reference with other
values always renders again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import duckdb

from m4agent.dbt.duckdb_session import EICU_ALIAS, quote_identifier
from m4agent.registry import Task

TRUTH_MODELS = ("int_grading__truth_tasks", "int_grading__truth_rows", "int_grading__truth_profiles",
                "int_grading__truth_values")
_TABLE = "agent_outputs.truth_fingerprint"


def _code_digest(project_dir: Path) -> str:
    """The SQL the truth depends on: the grading models (the truth models and the staging views they
    read) and the grading macros, rules included."""
    files = sorted((project_dir / "models" / "grading").rglob("*.sql"))
    files += sorted((project_dir / "macros" / "grading").rglob("*.sql"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _reference(task: Task) -> str:
    database = f"{quote_identifier(EICU_ALIAS)}." if task.dataset.startswith("eicu") else ""  # else MIMIC-IV's
    return f'{database}"reference"."{task.reference_model}"'


def fingerprint(con: duckdb.DuckDBPyConnection, tasks: Iterable[Task], project_dir: Path) -> str:
    """The fingerprint of the truth a batch of these tasks needs (task tables already loaded;
    the eICU database attached as ``eicu`` when a task needs it)."""
    digest = hashlib.sha256(_code_digest(project_dir).encode())
    for table in ("task_settings", "task_columns"):
        rows = con.execute(f"SELECT * FROM agent_outputs.{table} ORDER BY ALL").fetchall()
        digest.update(repr(rows).encode())
    for task in sorted({task.name: task for task in tasks}.values(), key=lambda t: t.name):
        try:
            content = con.execute(f"SELECT COUNT(*), SUM(hash(r)) FROM {_reference(task)} AS r").fetchone()
        except duckdb.CatalogException:  # no such reference: the truth model records the gap
            content = "missing"
        digest.update(f"{task.name}:{content}".encode())
    return digest.hexdigest()


def reusable(con: duckdb.DuckDBPyConnection, current: str) -> bool:
    """Whether the truth tables were built for this fingerprint and are still there."""
    stored = con.execute(
        "SELECT 1 FROM duckdb_tables() WHERE schema_name = 'agent_outputs' AND table_name = 'truth_fingerprint'"
    ).fetchone()
    if not stored:
        return False
    row = con.execute(f"SELECT fingerprint FROM {_TABLE}").fetchone()
    built = {name for (name,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'grading'").fetchall()}
    return row is not None and row[0] == current and set(TRUTH_MODELS) <= built


def forget(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the stored fingerprint before the truth is rebuilt (a failed build leaves none)."""
    con.execute(f"DROP TABLE IF EXISTS {_TABLE}")


def remember(con: duckdb.DuckDBPyConnection, current: str) -> None:
    """Store the fingerprint of the truth just built."""
    con.execute(f"CREATE OR REPLACE TABLE {_TABLE} AS SELECT ? AS fingerprint", [current])
