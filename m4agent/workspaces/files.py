"""How the workspace store writes: atomic, read-only Parquet files, JSON stamps, one lock.

Every file is written under a temporary name in its final folder and renamed into place,
so a reader (a running container, another worker) sees the old file or the new one, never
half of one. Data files are then made read-only (``chmod a-w``): the shared export is
never modified in place, only replaced.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from m4agent.dbt.duckdb_session import sql_string

# DuckDB 1.4 (the agent image) must read what the host's DuckDB writes: Parquet format 1.
# ZSTD level 1 rather than DuckDB's default 3: about 30% less CPU for about 10% more bytes.
PARQUET_OPTIONS = "FORMAT PARQUET, COMPRESSION ZSTD, COMPRESSION_LEVEL 1, PARQUET_VERSION V1"
READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH


def write_parquet(con: duckdb.DuckDBPyConnection, select_sql: str, target: Path) -> None:
    """Write the rows of ``select_sql`` to ``target`` (ZSTD Parquet) atomically, read-only."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    try:
        con.execute(f"COPY ({select_sql}) TO {sql_string(str(partial))} ({PARQUET_OPTIONS})")
        os.chmod(partial, READ_ONLY)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def link_read_only(source: Path, target: Path) -> None:
    """Hard-link ``source`` (a read-only store file) at ``target``, replacing what was there."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    os.link(source, partial)
    os.replace(partial, target)


def parquet_rows(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Row count of a Parquet file, from its footer."""
    row = con.execute(
        f"SELECT COALESCE(SUM(num_rows), 0) FROM parquet_file_metadata({sql_string(str(path))})"
    ).fetchone()
    return int(row[0]) if row else 0


def parquet_columns(con: duckdb.DuckDBPyConnection, path: Path) -> list[tuple[str, str]]:
    """``(name, DuckDB type)`` of each column of a Parquet file, in order."""
    rows = con.execute(f"DESCRIBE SELECT * FROM read_parquet({sql_string(str(path))})").fetchall()
    return [(str(r[0]), str(r[1])) for r in rows]


def write_json(path: Path, doc: Any) -> None:
    """Write ``doc`` as sorted, indented JSON, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.replace(partial, path)


def read_json(path: Path) -> Any | None:
    """The JSON document at ``path``, or None when it is missing or unreadable."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def digest(doc: Any) -> str:
    """SHA-256 of ``doc``'s canonical JSON form."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
