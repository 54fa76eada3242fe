"""Load PhysioNet's own csv.gz layout into the data directory's DuckDB files.

MIMIC-IV (3.1, demo 2.2) ships ``hosp/*.csv.gz`` and ``icu/*.csv.gz``;
eICU-CRD (2.0, demo 2.0.1) ships flat camelCase ``*.csv.gz`` files. Every
table of :mod:`m4agent.data.schema` is read with its official column types (never
inferred from the data) and PhysioNet's own CSV conventions: comma separated,
double-quote quoting, a header line, and an *unquoted* empty field as NULL
(the ``NULL ''`` of mimic-code's ``load_gz.sql``), so a quoted ``""`` stays an
empty string.

The load is streaming (DuckDB decompresses and parses each file in chunks, with
``preserve_insertion_order=false`` and a memory limit), checked before it
starts (every file present, every header exactly the official columns, the
folder belongs to the dataset), and atomic: the database is built as
``<db>.partial`` and renamed over ``<db>`` only when every table is complete,
so an interrupted or failed load never leaves a file that looks finished and
never touches a previous good database. Source files are only read.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import shutil
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import duckdb
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from m4agent.data.schema import Table, create_table_sql, schemas, tables
from m4agent.errors import M4AgentError
from m4agent.paths import database_path

DEFAULT_MEMORY_LIMIT = "8GB"  # full MIMIC-IV streams within it; DuckDB spills to <db>.partial.tmp beyond
ENV_MEMORY_LIMIT = "M4AGENT_LOAD_MEMORY_LIMIT"
SUFFIXES = (".csv.gz", ".csv")
DATASET_LABELS = {"mimic-iv": "MIMIC-IV", "eicu": "eICU-CRD"}
# A file whose presence says "this folder belongs to the other dataset".
_FOREIGN_MARKERS = {
    "mimic-iv": ("patient", "nurseCharting", "vitalPeriodic", "apacheApsVar"),
    "eicu": ("hosp/patients", "icu/icustays", "hosp", "icu"),
}
_OTHER = {"mimic-iv": "eicu", "eicu": "mimic-iv"}


@dataclass(frozen=True)
class SourceFile:
    """One CSV of the source folder, matched to its official table."""

    table: Table
    path: Path
    header: tuple[str, ...]  # column names as spelled in the file, in file order

    def read_csv_sql(self) -> str:
        """A ``read_csv`` call with every column typed from the schema, nothing auto-detected."""
        types = {c.name: c.type for c in self.table.columns}
        columns = ", ".join(f"'{name}': '{types[name.lower()]}'" for name in self.header)
        path = str(self.path).replace("'", "''")
        return (
            f"read_csv('{path}', columns = {{{columns}}}, header = true, auto_detect = false, "
            "delim = ',', quote = '\"', escape = '\"', nullstr = '', allow_quoted_nulls = false, "
            "strict_mode = true)"
        )

    def insert_sql(self) -> str:
        by_lower = {name.lower(): name for name in self.header}
        select = ", ".join(f'"{by_lower[c]}"' for c in self.table.column_names)
        target = ", ".join(f'"{c}"' for c in self.table.column_names)
        return f"INSERT INTO {self.table.qualified} ({target}) SELECT {select} FROM {self.read_csv_sql()}"


def find_file(src: Path, table: Table) -> Path | None:
    """The table's file under ``src`` (``.csv.gz`` preferred over ``.csv``), if present."""
    for suffix in SUFFIXES:
        candidate = src / f"{table.file_stem}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def _has_file(src: Path, stem: str) -> bool:
    return any((src / f"{stem}{suffix}").is_file() for suffix in SUFFIXES)


def read_header(path: Path) -> tuple[str, ...]:
    """The column names on the first line of a CSV (gzip or plain); reads nothing else."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as raw:
            line = raw.readline(1 << 20)
    except (OSError, EOFError, zlib.error) as exc:
        raise M4AgentError(f"{path}: cannot read the header line ({exc}); re-download this file") from exc
    text = line.decode("utf-8-sig", errors="replace").strip("\r\n")
    if not text:
        raise M4AgentError(f"{path}: the file is empty (no header line); re-download this file")
    return tuple(next(csv.reader(io.StringIO(text))))


def _relative(src: Path, path: Path) -> str:
    try:
        return str(path.relative_to(src))
    except ValueError:
        return str(path)


def _check_folder(dataset: str, src: Path) -> None:
    if not src.exists():
        raise M4AgentError(f"{src}: no such folder; pass --src the folder you downloaded from PhysioNet")
    if not src.is_dir():
        raise M4AgentError(f"{src}: not a folder; pass --src the folder that holds the *.csv.gz files")
    own = [t.file_stem for t in tables(dataset).values()]
    if any(_has_file(src, stem) for stem in own):
        return
    foreign = [f"{m}/" if (src / m).is_dir() else f"{m}.csv.gz"
               for m in _FOREIGN_MARKERS[dataset] if _has_file(src, m) or (src / m).is_dir()]
    if foreign:
        other = _OTHER[dataset]
        raise M4AgentError(
            f"{src}: holds {DATASET_LABELS[other]} files (found {foreign[0]}), not {DATASET_LABELS[dataset]}; "
            f"use --dataset {other} or point --src at the {DATASET_LABELS[dataset]} folder"
        )
    if dataset == "mimic-iv" and _has_file(src, "patients"):
        raise M4AgentError(
            f"{src}: found patients.csv.gz directly in this folder; pass --src the parent folder "
            "that holds hosp/ and icu/"
        )


def _unlisted_files(src: Path, dataset: str, listed: set[Path]) -> list[str]:
    folders = {src} | {src / Path(t.file_stem).parent for t in tables(dataset).values()}
    extra = []
    for folder in sorted(folders):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.name.endswith(SUFFIXES) and path not in listed:
                extra.append(_relative(src, path))
    return extra


def plan(dataset: str, src: Path) -> tuple[list[SourceFile], list[str]]:
    """Check the source folder without loading anything.

    Returns the files to load, in schema order, and the CSVs that are not part
    of the schema (they are skipped). Raises :class:`M4AgentError` naming the
    first problem: wrong dataset folder, a missing file, a header with a missing
    or an unexpected column.
    """
    if dataset not in DATASET_LABELS:
        raise M4AgentError(f"unknown dataset {dataset!r}; choose mimic-iv or eicu")
    src = Path(src)
    _check_folder(dataset, src)
    label = DATASET_LABELS[dataset]

    missing = [t for t in tables(dataset).values() if find_file(src, t) is None]
    if missing:
        names = [f"{t.file_stem}.csv.gz" for t in missing]
        more = f" (and {len(names) - 1} more: {', '.join(names[1:4])}{', ...' if len(names) > 4 else ''})" \
            if len(names) > 1 else ""
        raise M4AgentError(
            f"{src / names[0]}: missing{more}; every {label} table file must be present "
            "in PhysioNet's layout, download the complete dataset"
        )

    files = []
    for table in tables(dataset).values():
        path = find_file(src, table)
        assert path is not None
        header = read_header(path)
        lowered = [h.lower() for h in header]
        expected = table.column_names
        lacking = [c for c in expected if c not in lowered]
        extra = [h for h in header if h.lower() not in expected]
        duplicated = sorted({h for h in lowered if lowered.count(h) > 1})
        problems = []
        if lacking:
            problems.append(f"lacks column {', '.join(lacking)}")
        if extra:
            problems.append(f"has unexpected column {', '.join(extra)}")
        if duplicated:
            problems.append(f"repeats column {', '.join(duplicated)}")
        if problems:
            raise M4AgentError(
                f"{path}: header {' and '.join(problems)} (expected the {len(expected)} official "
                f"columns of {table.qualified}); use the unmodified {label} file from PhysioNet"
            )
        files.append(SourceFile(table, path, header))

    skipped = _unlisted_files(src, dataset, {f.path for f in files})
    return files, skipped


def _explain(exc: duckdb.Error, source: SourceFile, memory_limit: str) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, duckdb.OutOfMemoryException):
        return (f"{source.path}: DuckDB ran out of memory loading {source.table.qualified} within the "
                f"{memory_limit} limit ({first}); set ${ENV_MEMORY_LIMIT} higher (e.g. 8GB) and rerun")
    if "gzip" in first.lower() or "zlib" in first.lower() or "inflate" in first.lower():
        return (f"{source.path}: the gzip stream is truncated or corrupt ({first}); "
                "re-download this file and check it against SHA256SUMS.txt")
    return (f"{source.path}: cannot be loaded into {source.table.qualified} ({first}); the file is damaged "
            "or not PhysioNet's: re-download it and check it against SHA256SUMS.txt")


def _remove_partial(partial: Path) -> None:
    for path in (partial, Path(f"{partial}.wal")):
        path.unlink(missing_ok=True)
    shutil.rmtree(Path(f"{partial}.tmp"), ignore_errors=True)  # DuckDB's spill folder


def _run_with_progress(con: duckdb.DuckDBPyConnection, sql: str, progress: Progress, task_id: int) -> None:
    """Run ``sql`` on a worker thread while the bar follows DuckDB's query progress.

    Completion is signalled with an Event rather than ``Thread.join``: a join cut
    short by Ctrl-C can report a still-running thread as finished, and the
    connection must be idle before it is closed and the partial file removed.
    """
    failure: list[BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            con.execute(sql)
        except BaseException as exc:  # re-raised on the caller's thread
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, daemon=True).start()
    try:
        while not done.wait(0.25):
            percent = con.query_progress()
            if percent >= 0:
                progress.update(task_id, completed=percent)
    except BaseException:
        con.interrupt()
        while not done.wait(0.1):
            con.interrupt()
        raise
    if failure:
        raise failure[0]


def load(
    dataset: str,
    src: Path,
    data_dir: Path,
    memory_limit: str | None = None,
    console: Console | None = None,
) -> Path:
    """Load the PhysioNet folder ``src`` into ``data_dir``'s DuckDB file for ``dataset``.

    Replaces an existing database atomically; on any error the previous database
    is untouched and no partial file remains. ``memory_limit`` (default
    ``$M4AGENT_LOAD_MEMORY_LIMIT`` or 8GB) caps DuckDB's memory during the load.
    """
    src = Path(src)
    memory_limit = memory_limit or os.environ.get(ENV_MEMORY_LIMIT, DEFAULT_MEMORY_LIMIT)
    if not re.fullmatch(r"\d+(\.\d+)?\s*[KMGT]i?B", memory_limit.strip(), flags=re.IGNORECASE):
        raise M4AgentError(f"memory limit {memory_limit!r} is not a size like 8GB or 512MiB; "
                           f"fix ${ENV_MEMORY_LIMIT}")
    files, skipped = plan(dataset, src)
    console = console or Console(stderr=True)
    if skipped:
        console.print(f"[yellow]note:[/] skipping {len(skipped)} file(s) not in the schema: {', '.join(skipped)}")

    target = database_path(data_dir, dataset)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    _remove_partial(partial)

    con = duckdb.connect(str(partial))
    try:
        con.execute(f"SET memory_limit = '{memory_limit}'")
        con.execute("SET preserve_insertion_order = false")
        con.execute("SET enable_progress_bar = true")
        con.execute("SET enable_progress_bar_print = false")
        con.execute("SET progress_bar_time = 0")
        for schema in schemas(dataset):
            con.execute(f"CREATE SCHEMA {schema}")
        with Progress(
            TextColumn("{task.description:<34}"), BarColumn(), TaskProgressColumn(),
            TimeElapsedColumn(), TextColumn("{task.fields[rows]}"),
            console=console, transient=False,
        ) as progress:
            for source in files:
                task_id = progress.add_task(_relative(src, source.path), total=100, rows="")
                con.execute(create_table_sql(source.table))
                started = time.monotonic()
                try:
                    _run_with_progress(con, source.insert_sql(), progress, task_id)
                except duckdb.Error as exc:
                    raise M4AgentError(_explain(exc, source, memory_limit)) from exc
                rows = con.execute(f"SELECT count(*) FROM {source.table.qualified}").fetchone()[0]
                seconds = time.monotonic() - started
                progress.update(task_id, completed=100, rows=f"{rows:,} rows in {seconds:.1f}s")
        con.execute("CHECKPOINT")
        con.close()
        shutil.rmtree(Path(f"{partial}.tmp"), ignore_errors=True)
    except BaseException:
        con.close()
        _remove_partial(partial)
        raise
    Path(f"{target}.wal").unlink(missing_ok=True)
    os.replace(partial, target)
    return target
