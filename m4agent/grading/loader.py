"""Load agent CSVs into the ``agent_outputs`` schema, every value kept as text.

One call loads a batch of runs into four tables that ``models/grading`` reads as
dbt sources:

- ``output_files``: one row per run (run_id, task, path, whether the file exists,
  why it could not be read, row count, header names);
- ``output_rows``: one row per CSV row, wide: ``column_1`` .. ``column_W`` hold
  the task's graded columns in slot order (key columns first, then scored
  columns, as ``task_columns.slot`` numbers them), each cell's text, NULL for an
  empty cell or a column the file lacks (a literal ``None`` stays text);
- ``task_settings`` and ``task_columns``: the task definitions the batch needs.

Runs carry an integer ``run_number`` (batch order) so the grading models join
and group on integers; ``run_id`` stays the name users see.

Reading follows M4Bench's reader (pandas 2.3.1's ``read_csv`` with only empty
cells missing) wherever a file's fate depends on it: a UTF-8 byte-order mark is
dropped, blank lines are skipped (before the header too), quoted newlines stay
inside their cell, a field ends at a NUL byte, a trailing delimiter on the data
rows makes the first field the row index, duplicated header names get pandas'
``.1`` suffixes; a file that is empty, not UTF-8, ends inside a quoted field or
has a row with more fields than the first one cannot be read (the original
scores it 0). ``csv_syntax`` states these rules. Such a file gets a recorded
reason, never an exception; so does any error while reading one run.

An output is opened only as a regular file inside its run folder, never through
a link (``run_files``), and no reader gets its path: Arrow reads its bytes, and
DuckDB a copy under a name of our own (DuckDB takes ``[``, ``*``, ``?`` in a path
as a pattern).

``output_rows`` is a view over Parquet files in ``rows_dir``, one per run in a
folder per task and run, ``task=<task>/run_number=<n>/rows.parquet``: the folder
names give the columns ``task`` and ``run_number`` (a filter on either reads only
the matching files), and a row's position in its file gives ``row_number``, so a
file holds only the run's text columns. Each CSV is read by Arrow's CSV reader
(streamed block by block above STREAM_ABOVE_BYTES, so memory stays bounded) and
its graded columns written to its run's Parquet file, which the grading models
read as fast columnar scans.
The text columns are dictionary-encoded and not compressed: an output repeats
its values (ids, a stay's weight on every row, repeated sums), so the files
are about a third of the plain size (0.46 against 1.4 GB for the benchmark's
1.1 GB of CSVs), and DuckDB reads them faster. A CSV Arrow's reader
refuses (a short row pandas pads, a bad byte, a row with too many fields) is
read again by DuckDB's CSV reader, which pads short rows and words the reason.
"""

from __future__ import annotations

import mmap
import os
import shutil
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from m4agent.dbt.duckdb_session import sql_string
from m4agent.grading import csv_syntax, run_files
from m4agent.registry import Task

SCHEMA = "agent_outputs"

_DDL = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE OR REPLACE TABLE {SCHEMA}.output_files (
    run_id VARCHAR NOT NULL, run_number INTEGER NOT NULL, task VARCHAR NOT NULL, output_path VARCHAR,
    file_exists BOOLEAN NOT NULL, read_error VARCHAR, agent_rows BIGINT, header VARCHAR[]
);
CREATE OR REPLACE TABLE {SCHEMA}.task_settings (
    task VARCHAR NOT NULL, reference_model VARCHAR NOT NULL, dataset VARCHAR NOT NULL,
    row_coverage_threshold DOUBLE NOT NULL, accuracy_threshold DOUBLE NOT NULL
);
CREATE OR REPLACE TABLE {SCHEMA}.task_columns (
    task VARCHAR NOT NULL, column_name VARCHAR NOT NULL, role VARCHAR NOT NULL,
    position INTEGER NOT NULL, tolerance DOUBLE, slot INTEGER
);
"""


def _rows_schema(width: int) -> pa.Schema:
    """A run file's columns: the slots' text (its run and its rows' positions are not stored,
    see _run_file and load_runs)."""
    return pa.schema([pa.field(f"column_{slot}", pa.string()) for slot in range(1, width + 1)])

@dataclass(frozen=True)
class Run:
    """One agent output to grade."""

    run_id: str
    task: Task
    output_path: Path


class UnreadableOutput(Exception):
    """The CSV cannot be read the way M4Bench reads it; the message is the reason."""


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


def literal_path(path: Path) -> str:
    """``path`` as a DuckDB file argument that matches only itself: DuckDB's readers take ``*``, ``?``
    and ``[...]`` as patterns, so each such character (and the braces) is put in a class of its own."""
    return "".join(f"[{char}]" if char in "*?[]{}" else char for char in str(path))


def slot_columns(task: Task) -> list[str]:
    """The task's graded columns in slot order: key columns, then scored columns."""
    return list(dict.fromkeys([*task.key_columns, *task.scored_columns]))


def _slot_batch(columns: dict[str, pa.Array], rows: int, run: Run, width: int) -> pa.RecordBatch:
    slots = [columns.get(name, pa.nulls(rows, pa.string())) for name in slot_columns(run.task)]
    slots += [pa.nulls(rows, pa.string())] * (width - len(slots))
    return pa.RecordBatch.from_arrays(slots, schema=_rows_schema(width))


LOAD_THREADS = min(4, os.cpu_count() or 1)
STREAM_ABOVE_BYTES = 64 << 20  # larger CSVs are mapped and streamed block by block (bounded memory)
MAX_HEADER_FIELDS = 100_000  # a header with more fields is not read (pandas would try)


@dataclass
class _Layout:
    """A readable CSV: its bytes, its header as pandas names it, where its data starts, the internal
    column names readers use (positional: ``i<n>`` for the index fields, ``c<n>`` for the header's),
    and the task's graded columns it has, by internal name."""

    data: bytes | mmap.mmap
    header: list[str]
    data_offset: int
    names: list[str]
    present: dict[str, str]
    has_quotes: bool
    has_nul: bool


def _layout(data: bytes | mmap.mmap, run: Run) -> _Layout:
    """Where the header and data are (csv_syntax); raises UnreadableOutput."""
    try:
        line_end = data.find(b"\n", 0, csv_syntax.HEADER_LIMIT)
        if data[:line_end if line_end >= 0 else csv_syntax.HEADER_LIMIT].count(b",") >= MAX_HEADER_FIELDS:
            raise csv_syntax.CsvSyntaxError(f"the header has more than {MAX_HEADER_FIELDS} fields; it is not read")
        preamble = csv_syntax.read_preamble(data)
        quote_problem = csv_syntax.unclosed_quote(data, preamble.data_offset)
    except csv_syntax.CsvSyntaxError as exc:
        raise UnreadableOutput(str(exc)) from None
    if quote_problem:
        raise UnreadableOutput(quote_problem)
    header = pandas_column_names(preamble.header)
    names = [f"i{position}" for position in range(preamble.index_columns)]
    names += [f"c{position}" for position in range(len(header))]
    by_name = {name: f"c{position}" for position, name in enumerate(header)}
    present = {name: by_name[name] for name in slot_columns(run.task) if name in by_name}
    return _Layout(data, header, preamble.data_offset, names, present,
                   data.find(b'"', preamble.data_offset) >= 0, csv_syntax.has_nul(data, preamble.data_offset))


def _cut_at_nul(column: pa.Array) -> pa.Array:
    """Each value up to its first NUL byte, an emptied value missing (pandas 2.3.1, csv_syntax)."""
    if not pc.any(pc.match_substring(column, "\x00")).as_py():
        return column
    cut = pc.list_element(pc.split_pattern(column, "\x00", max_splits=1), 0)
    return pc.if_else(pc.equal(cut, ""), pa.scalar(None, pa.string()), cut)


def _slots(layout: _Layout, columns: dict[str, pa.Array], rows: int, run: Run, width: int) -> pa.RecordBatch:
    """The graded columns of one block of rows (by internal name) in slot order."""
    by_name = {name: columns[internal] for name, internal in layout.present.items()}
    if layout.has_nul:
        by_name = {name: _cut_at_nul(column) for name, column in by_name.items()}
    return _slot_batch(by_name, rows, run, width)


def _arrow_batches(layout: _Layout, run: Run, width: int) -> Iterator[pa.RecordBatch]:
    """Read the data with Arrow (every cell text, only empty cells missing); raises pa.ArrowInvalid."""
    kept = list(layout.present.values()) or layout.names[:1]
    is_ascii = isinstance(layout.data, bytes) and layout.data.isascii()
    read = {
        "read_options": pa_csv.ReadOptions(column_names=layout.names, block_size=1 << 24),
        # A newline inside a value needs quotes around it: data without '"' has none, and Arrow
        # splits it into blocks at any newline, a third faster than tracking quotes.
        "parse_options": pa_csv.ParseOptions(newlines_in_values=layout.has_quotes),
        "convert_options": pa_csv.ConvertOptions(
            column_types={name: pa.string() for name in layout.names}, include_columns=kept,
            strings_can_be_null=True, quoted_strings_can_be_null=True, null_values=[""],
            check_utf8=not is_ascii,  # plain ASCII is valid UTF-8: Arrow's check of every cell is skipped
        ),
    }
    source = pa.BufferReader(pa.py_buffer(layout.data).slice(layout.data_offset))
    if len(layout.data) > STREAM_ABOVE_BYTES:
        batches: Iterable[pa.RecordBatch] = pa_csv.open_csv(source, **read)
    else:  # whole file at once: Arrow parses its blocks on several threads
        batches = pa_csv.read_csv(source, **read).to_batches()
    for batch in batches:
        yield _slots(layout, {name: batch.column(name) for name in kept}, batch.num_rows, run, width)


_BEYOND = "_m4_beyond_header"


def _duckdb_batch(con: duckdb.DuckDBPyConnection, layout: _Layout, copy: Path, run: Run,
                  width: int) -> pa.RecordBatch:
    """Read the data (copied to ``copy``, a name of our own) with DuckDB: it pads short rows as pandas
    does and words the reason; raises UnreadableOutput."""
    kept = list(layout.present.values())
    selected = ", ".join(f"NULLIF({name}, '') AS {name}" for name in kept) or "1 AS _m4_row"
    # DuckDB reads a record with one empty field too many as if it had none; a column beyond the
    # header's, NULL only when padded (empty fields are read as '', not as NULL), shows such a record
    columns = "{" + ", ".join(f"{sql_string(name)}: 'VARCHAR'" for name in [*layout.names, _BEYOND]) + "}"
    first, second = [*layout.names, _BEYOND][:2]
    try:
        table = con.sql(
            f"SELECT {selected}, {_BEYOND} IS NOT NULL AS {_BEYOND} FROM read_csv(?, header = false, "
            "all_varchar = true, delim = ',', quote = '\"', escape = '\"', null_padding = true, "
            "parallel = false, auto_detect = false, nullstr = '\x01', "
            f"max_line_size = {max(2 << 20, len(layout.data) + 1)}, columns = {columns}) "
            # pandas skips a line of spaces and tabs; DuckDB reads it as a record of one field, padded
            f"WHERE NOT (regexp_full_match({first}, '[ \t]+') AND {second} IS NULL)",
            params=[literal_path(copy)],
        ).to_arrow_table()
    except duckdb.Error as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        if any("Invalid unicode" in line for line in lines):
            where = next((line for line in lines if line.startswith("CSV Error on Line")), "")
            raise UnreadableOutput(f"not UTF-8: invalid byte sequence ({where})") from None
        kept_lines = [line for line in lines[:4] if not line.startswith(("Possible fixes", "*", "Original Line"))]
        raise UnreadableOutput("CSV parse error: " + " ".join(kept_lines or [type(exc).__name__])) from None
    too_long = pc.index(table.column(_BEYOND), True).as_py()
    if too_long >= 0:
        raise UnreadableOutput(f"CSV parse error: Expected Number of Columns: {len(layout.names)} Found: "
                               f"{len(layout.names) + 1} (data row {too_long + 1})")
    return _slots(layout, {name: table.column(name).combine_chunks() for name in kept}, table.num_rows, run, width)


def _write_run(path: Path, batches: Iterable[pa.RecordBatch], width: int) -> int:
    """Write a run's batches to its Parquet file; the row count. Nothing is left behind on error,
    and no file for a run without rows (DuckDB estimates a Parquet scan's size from its first file,
    and an empty one would make it plan every join as if the agent rows were none)."""
    rows = 0
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with pq.ParquetWriter(path, _rows_schema(width), compression="none", write_statistics=False) as writer:
            for batch in batches:
                writer.write_batch(batch)
                rows += batch.num_rows
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    if rows == 0:
        path.unlink()
        path.parent.rmdir()
    return rows


def _run_file(rows_dir: Path, run: Run, run_number: int) -> Path:
    """``rows_dir/task=<task>/run_number=<n>/rows.parquet`` (hive partitions: a filter on the task
    or the run reads only the matching files)."""
    return rows_dir / f"task={run.task.name}" / f"run_number={run_number}" / "rows.parquet"


def _data_copy(rows_dir: Path, run_number: int) -> Path:
    """Where the data of a CSV Arrow refuses is copied for DuckDB: a name of our own, beside the
    run files (outside their ``*/*/*.parquet`` pattern), removed once read."""
    return rows_dir / "csv" / f"{run_number}.csv"


@dataclass
class _Outcome:
    """One run's load: whether the file exists, why it cannot be read, its rows and header; with
    ``fallback``, the CSV Arrow refused, its data copied for DuckDB."""

    exists: bool
    error: str | None = None
    rows: int | None = None
    header: list[str] | None = None
    fallback: _Layout | None = None


def _read_output(run: Run) -> tuple[bytes | mmap.mmap, int]:
    """The output's bytes (mapped above STREAM_ABOVE_BYTES), opened as run_files opens a run's file."""
    handle, size = run_files.open_in_folder(run.output_path.parent, run.output_path.name)
    with handle:
        if size == 0:
            raise UnreadableOutput("no columns to parse from file (empty file)")
        if size > STREAM_ABOVE_BYTES:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ), size
        return handle.read(), size


def _load_with_arrow(rows_dir: Path, run: Run, run_number: int, width: int) -> _Outcome:
    """Write one CSV's rows to its run's Parquet file (_run_file), or say why it cannot be read, or
    hand it to DuckDB (``fallback``, see _load_with_duckdb). Never raises: any error is the run's."""
    try:
        try:
            data, _ = _read_output(run)
        except run_files.MissingFile:
            return _Outcome(False, f"output file not found: {run.output_path}")
        layout = _layout(data, run)
        try:
            rows = _write_run(_run_file(rows_dir, run, run_number), _arrow_batches(layout, run, width), width)
        except (pa.ArrowInvalid, UnicodeDecodeError):
            copy = _data_copy(rows_dir, run_number)
            copy.parent.mkdir(parents=True, exist_ok=True)
            with copy.open("wb") as out:
                out.write(memoryview(layout.data)[layout.data_offset:])
            return _Outcome(True, header=layout.header, fallback=layout)
        return _Outcome(True, rows=rows, header=layout.header)
    except (UnreadableOutput, run_files.UnsafeFile) as exc:
        return _Outcome(True, str(exc))
    except Exception as exc:  # noqa: BLE001 - a hostile file must not stop the batch
        return _Outcome(True, f"cannot read {run.output_path.name}: {type(exc).__name__}: {exc}")


def _load_with_duckdb(con: duckdb.DuckDBPyConnection, rows_dir: Path, run: Run, run_number: int, width: int,
                      layout: _Layout) -> _Outcome:
    """DuckDB's reader for the files Arrow refuses: it pads short rows as pandas does, and words the
    reason. Never raises: any error is the run's."""
    copy = _data_copy(rows_dir, run_number)
    try:
        batch = _duckdb_batch(con, layout, copy, run, width)
        return _Outcome(True, rows=_write_run(_run_file(rows_dir, run, run_number), [batch], width),
                        header=layout.header)
    except UnreadableOutput as exc:
        return _Outcome(True, str(exc))
    except Exception as exc:  # noqa: BLE001 - a hostile file must not stop the batch
        return _Outcome(True, f"cannot read {run.output_path.name}: {type(exc).__name__}: {exc}")
    finally:
        copy.unlink(missing_ok=True)


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
        settings.append((task.name, task.reference_model, task.dataset, task.row_coverage_threshold,
                         task.accuracy_threshold))
        slots = {name: slot for slot, name in enumerate(slot_columns(task), start=1)}
        roles = [("key", task.key_columns), ("scored", task.scored_columns),
                 ("required", task.required_columns or (*task.key_columns, *task.value_columns))]
        for role, names in roles:
            for position, name in enumerate(names):
                slot = slots[name] if role != "required" else None
                columns.append((task.name, name, role, position, task.tolerance.get(name), slot))
    if settings:
        _insert_rows(con, "task_settings", settings)
    if columns:
        _insert_rows(con, "task_columns", columns)


def _replace_folder(folder: Path, replacement: Path) -> None:
    """Put ``replacement`` in the place of ``folder``. The previous batch's files (about half a GB
    for a large campaign) are moved aside and deleted by a background thread while grading goes on;
    a folder left aside by an interrupted call is deleted first."""
    previous = folder.with_name(folder.name + ".previous")
    if previous.exists():
        shutil.rmtree(previous, ignore_errors=True)
    if folder.exists():
        folder.rename(previous)
    replacement.rename(folder)
    if previous.exists():
        threading.Thread(target=shutil.rmtree, args=(previous,), kwargs={"ignore_errors": True},
                         name="m4agent-remove-previous-batch", daemon=True).start()


def load_runs(con: duckdb.DuckDBPyConnection, runs: Sequence[Run], rows_dir: Path) -> None:
    """Replace the agent_outputs tables with this batch of runs (and their tasks).

    The rows go to Parquet files in ``rows_dir`` (replaced as a whole), and
    ``agent_outputs.output_rows`` becomes a view over them.
    """
    width = max((len(slot_columns(run.task)) for run in runs), default=1)
    if con.execute(f"SELECT 1 FROM duckdb_tables() WHERE schema_name = '{SCHEMA}' AND table_name = 'output_rows'"
                   ).fetchone():
        con.execute(f"DROP TABLE {SCHEMA}.output_rows")  # a table in databases graded before output_rows was a view
    con.execute(_DDL)
    write_tasks(con, (run.task for run in runs))
    partial = rows_dir.with_name(rows_dir.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    # Arrow reads and Parquet writes release the GIL: two files at a time use both cores.
    with ThreadPoolExecutor(max_workers=LOAD_THREADS) as pool:
        loaded = list(pool.map(lambda numbered: _load_with_arrow(partial, numbered[1], numbered[0], width),
                               enumerate(runs, start=1)))
    files = []
    for run_number, (run, outcome) in enumerate(zip(runs, loaded, strict=True), start=1):
        if outcome.fallback is not None:
            outcome = _load_with_duckdb(con, partial, run, run_number, width, outcome.fallback)
        files.append((run.run_id, run_number, run.task.name, str(run.output_path), outcome.exists, outcome.error,
                      outcome.rows, outcome.header))
    shutil.rmtree(partial / "csv", ignore_errors=True)
    if not any(partial.glob("*/*/*.parquet")):  # the view needs a file, even for a batch without rows
        placeholder = partial / "task=~none" / "run_number=0"
        placeholder.mkdir(parents=True)
        with pq.ParquetWriter(placeholder / "rows.parquet", _rows_schema(width)):
            pass
    _replace_folder(rows_dir, partial)
    _insert_rows(con, "output_files", files)
    # the run files' pattern; the folder itself is matched literally whatever characters it has
    pattern = sql_string(literal_path(rows_dir.resolve()) + "/*/*/*.parquet")
    columns = ", ".join(f"column_{slot}" for slot in range(1, width + 1))
    # row_number: the row's position in its run's file (written in CSV order), 1-based
    con.execute(f"CREATE OR REPLACE VIEW {SCHEMA}.output_rows AS "
                f"SELECT run_number, CAST(file_row_number AS BIGINT) + 1 AS row_number, task, {columns} "
                f"FROM read_parquet({pattern}, hive_partitioning = true, file_row_number = true, "
                "hive_types = {'task': VARCHAR, 'run_number': INTEGER})")
