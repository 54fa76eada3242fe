"""Export a task's reference table as a deterministic CSV plus a provenance manifest.

``export(task_name, data_dir, out)`` reads the task's reference model (built by
``m4agent reference build`` into schema ``reference`` of the MIMIC-IV database,
or of the attached eICU database for eICU tasks), keeps the task's required
columns in the task's order, sorts by the key columns, and writes:

- ``out`` (CSV): header row, ``\\n`` line ends, minimal quoting; timestamps as
  ``YYYY-MM-DD HH:MM:SS`` (with ``.ffffff`` on every cell of a column in which any
  timestamp has a sub-second part), dates as ``YYYY-MM-DD``; integers as digits; floats
  rounded to 15 significant digits and written in their shortest round-trip
  form (``6.0``, ``0.123``, ``0.1 + 0.2`` as ``0.3``); an empty cell for NULL
  (and NaN). The same database gives the same bytes, and a raw task and its
  standard twin give the same file.
- ``out`` with suffix ``.manifest.json``: task, model, relation, SHA-256 of the
  model's compiled SQL (from ``DIR/dbt/target/manifest.json``), SHA-256 of the
  source database file, dbt and DuckDB versions, row count, columns, sort keys
  and the CSV's SHA-256.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import functools
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

from m4agent import duckdb_session
from m4agent.dbt_runner import artefact_dir
from m4agent.errors import M4AgentError
from m4agent.paths import database_path, resolve_data_dir
from m4agent.registry import Task, load_task

MANIFEST_SUFFIX = ".manifest.json"
# Floats are written at 15 significant digits: below every grading tolerance (the
# smallest is 0.01; no task grades a float column exactly) and above the last-digit
# noise of parallel floating-point sums, so two builds write the same bytes.
_SIGNIFICANT_DIGITS = 15


@dataclass(frozen=True)
class Relation:
    """Where dbt built a model: catalog (DuckDB database alias), schema and table name."""

    model: str
    database: str
    schema: str
    name: str
    compiled_sql: str

    @property
    def qualified(self) -> str:
        return ".".join(_quote(part) for part in (self.database, self.schema, self.name))


def manifest_path(out: Path) -> Path:
    """``FILE.csv`` -> ``FILE.manifest.json``."""
    return out.with_suffix(MANIFEST_SUFFIX)


def format_value(value: object, fractional_seconds: bool = False) -> str:
    """One CSV cell, deterministic across runs and platforms.

    Timestamps carry six fractional digits only when ``fractional_seconds`` (set for a
    whole column when any of its timestamps has a sub-second part, so every cell of a
    column has one format, as pandas writes it).
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(float(f"{value:.{_SIGNIFICANT_DIGITS}g}"))
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return ""
        return format_value(float(value))
    if isinstance(value, dt.datetime):
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        return f"{text}.{value.microsecond:06d}" if fractional_seconds else text
    if isinstance(value, dt.date):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, dt.timedelta):
        return str(value.total_seconds())
    return str(value)


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@functools.lru_cache(maxsize=8)
def _sha256_file_cached(path: Path, size: int, mtime_ns: int) -> str:
    """SHA-256 of a (large) database file, computed once per process and file version."""
    return _sha256_file(path)


def _sha256_database(path: Path) -> str:
    stat = path.stat()
    return _sha256_file_cached(path, stat.st_size, stat.st_mtime_ns)


def _sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _load_dbt_manifest(data_dir: Path) -> dict:
    path = artefact_dir(data_dir) / "target" / "manifest.json"
    if not path.exists():
        raise M4AgentError(
            f"no dbt build found ({path} is missing); run `m4agent reference build --data-dir {data_dir}` first"
        )
    return json.loads(path.read_text())


def find_relation(data_dir: Path, model: str) -> tuple[Relation, str]:
    """The built relation of ``model`` and the dbt version, from the build's manifest.json."""
    manifest = _load_dbt_manifest(data_dir)
    node = manifest.get("nodes", {}).get(f"model.m4agent.{model}")
    if node is None:
        raise M4AgentError(
            f"model {model!r} is not in the dbt build of {data_dir}; "
            f"run `m4agent reference build --data-dir {data_dir}` with the current project"
        )
    compiled = node.get("compiled_code")
    if not compiled:
        compiled_file = artefact_dir(data_dir) / "target" / "compiled" / "m4agent" / node["original_file_path"]
        compiled = compiled_file.read_text() if compiled_file.exists() else ""
    if not compiled:
        raise M4AgentError(
            f"model {model!r} has no compiled SQL in {data_dir / 'dbt'}; "
            f"run `m4agent reference build --data-dir {data_dir} --select {model}`"
        )
    relation = Relation(
        model=model,
        database=node["database"],
        schema=node["schema"],
        name=node.get("alias") or node["name"],
        compiled_sql=compiled,
    )
    dbt_version = manifest.get("metadata", {}).get("dbt_version", "unknown")
    return relation, dbt_version


def _select_sql(relation: Relation, task: Task) -> str:
    columns = ", ".join(_quote(c) for c in task.required_columns)
    order = [*task.key_columns, *[c for c in task.required_columns if c not in task.key_columns]]
    order_by = ", ".join(f"{_quote(c)} ASC NULLS LAST" for c in order)
    return f"SELECT {columns} FROM {relation.qualified} ORDER BY {order_by}"


def export(task_name: str, data_dir: Path | str | None, out: Path) -> Path:
    """Write the reference of ``task_name`` to ``out`` (CSV) and its manifest; return ``out``."""
    task = load_task(task_name)
    root = resolve_data_dir(data_dir)
    relation, dbt_version = find_relation(root, task.reference_model)
    source_db = database_path(root, task.dataset)

    con = duckdb_session.connect(root, read_only=True)
    try:
        present = {
            row[0]
            for row in con.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_catalog = ? AND table_schema = ? AND table_name = ?",
                [relation.database, relation.schema, relation.name],
            ).fetchall()
        }
        if not present:
            raise M4AgentError(
                f"reference table {relation.qualified} not found; "
                f"run `m4agent reference build --data-dir {root} --select {relation.model}`"
            )
        missing = [c for c in task.required_columns if c not in present]
        if missing:
            raise M4AgentError(
                f"reference {relation.model} lacks required column(s) {', '.join(missing)} of task "
                f"{task.name}; rebuild it with `m4agent reference build --select {relation.model}`"
            )
        rows = con.execute(_select_sql(relation, task)).fetchall()
        duckdb_version = con.execute("PRAGMA version").fetchone()[0]
    finally:
        con.close()

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerow(task.required_columns)
        fractional = [
            any(isinstance(row[i], dt.datetime) and row[i].microsecond for row in rows)
            for i in range(len(task.required_columns))
        ]
        for row in rows:
            writer.writerow([format_value(v, f) for v, f in zip(row, fractional, strict=True)])

    manifest = {
        "version": 1,
        "task": task.name,
        "reference": task.reference,
        "dataset": task.dataset,
        "model": relation.model,
        "relation": f"{relation.database}.{relation.schema}.{relation.name}",
        "compiled_sql_sha256": _sha256_text(relation.compiled_sql),
        "source_db": source_db.name,
        "source_db_sha256": _sha256_database(source_db) if source_db.exists() else None,
        "dbt_version": dbt_version,
        "duckdb_version": duckdb_version,
        "row_count": len(rows),
        "columns": list(task.required_columns),
        "sorted_by": list(task.key_columns),
        "csv_sha256": _sha256_file(out),
    }
    manifest_path(out).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return out
