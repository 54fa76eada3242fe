"""Export a task's reference table as a deterministic CSV plus a provenance manifest.

``export(task_name, data_dir, out)`` reads the task's reference model (built by
``m4agent reference build`` into schema ``reference`` of the MIMIC-IV database,
or of the attached eICU database for eICU tasks), keeps the task's required
columns in the task's order, sorts by the key columns, and writes:

- ``out`` (CSV, rendered by ``render_reference``): the text of M4Bench's
  ground-truth CSVs (DuckDB -> pandas -> ``to_csv``, the rule ``csv_cells``
  states), with floats rounded to 15 significant digits. The same database gives
  the same bytes, and a raw task and its standard twin give the same file.
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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4agent.dbt import duckdb_session
from m4agent.dbt.duckdb_session import quote_identifier
from m4agent.dbt.runner import artefact_dir
from m4agent.errors import M4AgentError
from m4agent.paths import database_path, resolve_data_dir
from m4agent.registry import load_task

MANIFEST_SUFFIX = ".manifest.json"
# The export writes floats at 15 significant digits: below every grading tolerance (the
# smallest is 0.01; no task grades a float column exactly) and above the last-digit
# noise of parallel floating-point sums, so two builds write the same bytes.
EXPORT_SIGNIFICANT_DIGITS = 15

# How a timestamp column is written, as pandas writes a datetime column: the date alone when
# every value is at midnight, else to the second, with milliseconds or microseconds when any
# value needs them (every cell of a column has the one format).
DATE = "%Y-%m-%d"
SECONDS = "%Y-%m-%d %H:%M:%S"
MILLISECONDS = "%Y-%m-%d %H:%M:%S.ms"
MICROSECONDS = "%Y-%m-%d %H:%M:%S.%f"


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
        return ".".join(quote_identifier(part) for part in (self.database, self.schema, self.name))


def manifest_path(out: Path) -> Path:
    """``FILE.csv`` -> ``FILE.manifest.json``."""
    return out.with_suffix(MANIFEST_SUFFIX)


def format_value(value: object, timestamp_format: str = SECONDS,
                 significant_digits: int | None = EXPORT_SIGNIFICANT_DIGITS) -> str:
    """One cell as M4Bench's ground truth writes it (pandas' ``to_csv`` of DuckDB's values).

    NULL and NaN are empty; booleans ``True``/``False``; integers digits; floats (and
    decimals, which pandas reads as floats) in their shortest round-trip form (``6.0``,
    ``0.1``), rounded first to ``significant_digits`` unless None; dates ``YYYY-MM-DD``;
    timestamps in ``timestamp_format`` (``timestamp_column_format`` chooses it per column).
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
        return repr(float(f"{value:.{significant_digits}g}") if significant_digits else value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return ""
        return format_value(float(value), significant_digits=significant_digits)
    if isinstance(value, dt.datetime):
        if timestamp_format == MILLISECONDS:
            return f"{value.strftime(SECONDS)}.{value.microsecond // 1000:03d}"
        return value.strftime(timestamp_format)
    if isinstance(value, dt.date):
        return value.strftime(DATE)
    if isinstance(value, dt.timedelta):  # no reference has an interval column
        return str(value.total_seconds())
    return str(value)


def timestamp_column_format(values: Sequence[object]) -> str:
    """The one format of a column's timestamps (see DATE .. MICROSECONDS), as pandas chooses it."""
    stamps = [v for v in values if isinstance(v, dt.datetime)]
    if all(v.time() == dt.time(0) for v in stamps):
        return DATE
    if any(v.microsecond % 1000 for v in stamps):
        return MICROSECONDS
    return MILLISECONDS if any(v.microsecond for v in stamps) else SECONDS


def csv_cells(rows: Sequence[Sequence[object]],
              significant_digits: int | None = EXPORT_SIGNIFICANT_DIGITS) -> list[list[str]]:
    """Rows of a reference (DuckDB's values) as the cells of M4Bench's ground-truth CSV: each value by
    ``format_value``, a timestamp column in the one format ``timestamp_column_format`` gives it;
    floats at ``significant_digits`` (None: unrounded, exactly as M4Bench writes them)."""
    width = len(rows[0]) if rows else 0
    formats = [timestamp_column_format([row[i] for row in rows]) for i in range(width)]
    return [[format_value(value, formats[i], significant_digits) for i, value in enumerate(row)]
            for row in rows]


def render_reference(con: duckdb.DuckDBPyConnection, relation: str, columns: Sequence[str],
                     keys: Sequence[str], significant_digits: int | None = EXPORT_SIGNIFICANT_DIGITS,
                     ) -> list[list[str]]:
    """A reference as M4Bench's ground-truth CSV holds it: a header of ``columns``, then one row per row
    of ``relation`` (a qualified table name), sorted by ``keys`` then the other columns (NULLs last),
    its cells by ``csv_cells``. The one rendering of a reference as CSV: ``export`` writes it, and the
    tests hold grading's truth and M4Bench's export to it."""
    order = [*keys, *[c for c in columns if c not in keys]]
    rows = con.execute(
        f"SELECT {', '.join(quote_identifier(c) for c in columns)} FROM {relation} "
        f"ORDER BY {', '.join(f'{quote_identifier(c)} ASC NULLS LAST' for c in order)}"
    ).fetchall()
    return [list(columns), *csv_cells(rows, significant_digits)]


def write_csv(rows: Sequence[Sequence[str]], out: Path) -> Path:
    """Rows of text as a CSV file: ``\\n`` line ends, minimal quoting, UTF-8 (as pandas' ``to_csv``)."""
    with out.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n", quoting=csv.QUOTE_MINIMAL).writerows(rows)
    return out


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
        rows = render_reference(con, relation.qualified, task.required_columns, task.key_columns)
        duckdb_version = con.execute("PRAGMA version").fetchone()[0]
    finally:
        con.close()

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out)

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
        "row_count": len(rows) - 1,
        "columns": list(task.required_columns),
        "sorted_by": list(task.key_columns),
        "csv_sha256": _sha256_file(out),
    }
    manifest_path(out).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return out
