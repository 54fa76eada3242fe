"""Load agent CSVs into the ``agent_outputs`` schema, every value kept as text.

One call loads a batch of runs into four tables that ``models/grading`` reads as
dbt sources:

- ``output_files``: one row per run (run_id, task, path, whether the file exists,
  why it could not be read, row count, header names);
- ``output_cells``: one row per (run, row, column) for the columns the task
  grades, ``value`` NULL only for an empty cell (a literal ``None`` stays text);
- ``task_settings`` and ``task_columns``: the task definitions the batch needs.

Reading follows M4Bench's reader (pandas ``read_csv`` with only empty cells
missing) wherever a file's fate depends on it: a UTF-8 byte-order mark is
dropped, blank lines are skipped, quoted newlines stay inside their cell,
duplicated header names get pandas' ``.1`` suffixes, a file that is empty or
not UTF-8, or has a row with more fields than the header, cannot be read (the
original scores it 0). Such a file gets a recorded reason, never an exception.
Files are streamed by DuckDB, so size is bounded by disk, not memory.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4agent.registry import Task

SCHEMA = "agent_outputs"

_DDL = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE OR REPLACE TABLE {SCHEMA}.output_files (
    run_id VARCHAR NOT NULL, task VARCHAR NOT NULL, output_path VARCHAR,
    file_exists BOOLEAN NOT NULL, read_error VARCHAR, agent_rows BIGINT, header VARCHAR[]
);
CREATE OR REPLACE TABLE {SCHEMA}.output_cells (
    run_id VARCHAR NOT NULL, row_number BIGINT NOT NULL, column_name VARCHAR NOT NULL, value VARCHAR
);
CREATE OR REPLACE TABLE {SCHEMA}.task_settings (
    task VARCHAR NOT NULL, reference_model VARCHAR NOT NULL,
    row_coverage_threshold DOUBLE NOT NULL, accuracy_threshold DOUBLE NOT NULL
);
CREATE OR REPLACE TABLE {SCHEMA}.task_columns (
    task VARCHAR NOT NULL, column_name VARCHAR NOT NULL, role VARCHAR NOT NULL,
    position INTEGER NOT NULL, tolerance DOUBLE
);
"""

@dataclass(frozen=True)
class Run:
    """One agent output to grade."""

    run_id: str
    task: Task
    output_path: Path


class UnreadableOutput(Exception):
    """The CSV cannot be read the way M4Bench reads it; the message is the reason."""


def _header(path: Path) -> list[str]:
    """The first non-blank CSV record, BOM dropped; raises when there is none."""
    try:
        with path.open("r", encoding="utf-8-sig", newline="") as handle:
            for record in csv.reader(handle):
                if record and any(field != "" for field in record):
                    return record
                if len(record) > 1:
                    return record
    except UnicodeDecodeError as exc:
        raise UnreadableOutput(f"not UTF-8: invalid byte in the header at offset {exc.start}") from None
    raise UnreadableOutput("no columns to parse from file (empty or blank)")


def pandas_column_names(header: Sequence[str]) -> list[str]:
    """Header names as pandas' C reader names them: blanks become ``Unnamed: i``; a repeated
    name gets the first free ``.n`` suffix, skipping names that appear elsewhere in the header."""
    names = [raw if raw != "" else f"Unnamed: {position}" for position, raw in enumerate(header)]
    counts: dict[str, int] = {}
    for position, original in enumerate(names):
        name = original
        count = counts.get(name, 0)
        while count > 0:
            counts[original] = count + 1
            name = f"{original}.{count}"
            count = count + 1 if name in names else counts.get(name, 0)
        names[position] = name
        counts[name] = count + 1
    return names


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _wanted_columns(task: Task) -> list[str]:
    return list(dict.fromkeys([*task.key_columns, *task.scored_columns]))


def _load_one(con: duckdb.DuckDBPyConnection, run: Run) -> tuple[bool, str | None, int | None, list[str] | None]:
    path = run.output_path
    if not path.is_file():
        return False, f"output file not found: {path}", None, None
    try:
        if path.stat().st_size == 0:
            raise UnreadableOutput("no columns to parse from file (empty file)")
        header = pandas_column_names(_header(path))
        present = [name for name in _wanted_columns(run.task) if name in header]
        # Only the graded columns are kept; DuckDB still tokenises (and checks) every field.
        kept_columns = ", ".join(_quote(name) for name in present) or "1 AS _m4_row"
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE _m4_loading AS SELECT {kept_columns} FROM read_csv(?, header = true, "
            "all_varchar = true, delim = ',', quote = '\"', escape = '\"', null_padding = true, "
            "parallel = false, auto_detect = false, columns = $cols)".replace("$cols", _columns_struct(header)),
            [str(path)],
        )
    except UnreadableOutput as exc:
        return True, str(exc), None, None
    except duckdb.Error as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        if any("Invalid unicode" in line for line in lines):
            where = next((line for line in lines if line.startswith("CSV Error on Line")), "")
            return True, f"not UTF-8: invalid byte sequence ({where})", None, None
        kept = [line for line in lines[:4] if not line.startswith(("Possible fixes", "*", "Original Line"))]
        return True, "CSV parse error: " + " ".join(kept or [type(exc).__name__]), None, None
    (rows,) = con.execute("SELECT count(*) FROM _m4_loading").fetchone()
    if present and rows:
        columns = ", ".join(_quote(name) for name in present)
        con.execute(
            f"INSERT INTO {SCHEMA}.output_cells SELECT {_literal(run.run_id)}, _m4_row_number, column_name, "
            f"NULLIF(value, '') FROM (SELECT rowid + 1 AS _m4_row_number, {columns} FROM _m4_loading) "
            f"UNPIVOT INCLUDE NULLS (value FOR column_name IN ({columns}))"
        )
    return True, None, int(rows), header


def _columns_struct(header: Sequence[str]) -> str:
    return "{" + ", ".join(f"{_literal(name)}: 'VARCHAR'" for name in header) + "}"


def _insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[tuple], chunk: int = 500) -> None:
    """Insert rows with one multi-row VALUES statement per chunk (executemany runs one statement a row)."""
    for start in range(0, len(rows), chunk):
        part = rows[start:start + chunk]
        placeholders = "(" + ", ".join("?" * len(part[0])) + ")"
        values = ", ".join([placeholders] * len(part))
        con.execute(f"INSERT INTO {SCHEMA}.{table} VALUES {values}", [value for row in part for value in row])


def write_tasks(con: duckdb.DuckDBPyConnection, tasks: Iterable[Task]) -> None:
    """Write each task's thresholds, columns and tolerances into the task tables."""
    settings, columns = [], []
    for task in {t.name: t for t in tasks}.values():
        settings.append((task.name, task.reference_model, task.row_coverage_threshold,
                         task.accuracy_threshold))
        roles = [("key", task.key_columns), ("scored", task.scored_columns),
                 ("required", task.required_columns or (*task.key_columns, *task.value_columns))]
        for role, names in roles:
            for position, name in enumerate(names):
                columns.append((task.name, name, role, position, task.tolerance.get(name)))
    if settings:
        _insert_rows(con, "task_settings", settings)
    if columns:
        _insert_rows(con, "task_columns", columns)


def load_runs(con: duckdb.DuckDBPyConnection, runs: Sequence[Run]) -> None:
    """Replace the agent_outputs tables with this batch of runs (and their tasks)."""
    con.execute(_DDL)
    write_tasks(con, (run.task for run in runs))
    con.execute("SET preserve_insertion_order = true")
    files = []
    for run in runs:
        exists, error, rows, header = _load_one(con, run)
        files.append((run.run_id, run.task.name, str(run.output_path), exists, error, rows, header))
    con.execute("DROP TABLE IF EXISTS _m4_loading")
    _insert_rows(con, "output_files", files)
