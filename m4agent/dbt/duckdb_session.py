"""Connections to a data directory's databases, and dbt's own DuckDB handle released.

A data directory holds two DuckDB files. The MIMIC-IV one is dbt's main
database: it holds the MIMIC-IV references (schema ``reference``), the agent
outputs grading loads (schema ``agent_outputs``) and the grading tables. The
eICU one holds the eICU references; dbt attaches it as ``eicu``, and so does
every connection made here, so a query names an eICU reference
``eicu.reference.<model>`` as the dbt models do.

dbt-duckdb runs in this process (``runner.invoke``) and keeps its DuckDB
instance open after a run; DuckDB then refuses another connection to the same
file with other settings (read-only, for one). ``release_dbt_handle`` closes
it, and ``connect`` does so when such a refusal meets it; the next dbt run
opens a new one. ``sql_string`` and ``quote_identifier`` put a value or a name into the
SQL sent on these connections.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import duckdb

from m4agent.errors import M4AgentError, explain
from m4agent.paths import database_path

EICU_ALIAS = "eicu"


def release_dbt_handle() -> None:
    """Close the DuckDB instance and connections dbt-duckdb keeps open after an in-process dbt run."""
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # dbt is not installed: nothing of it is open
        return
    environment = getattr(DuckDBConnectionManager, "_ENV", None)
    if environment is not None:
        with contextlib.suppress(Exception):  # an environment closed already
            environment.close()
    DuckDBConnectionManager.close_all_connections()


def attach_eicu(con: duckdb.DuckDBPyConnection, data_dir: Path) -> None:
    """Attach the data directory's eICU database read-only as ``eicu``, when there is one and it is not
    attached yet."""
    eicu = database_path(data_dir, "eicu")
    attached = {name for (name,) in con.execute("SELECT database_name FROM duckdb_databases()").fetchall()}
    if eicu.exists() and EICU_ALIAS not in attached:
        con.execute(f"ATTACH {sql_string(str(eicu))} AS {EICU_ALIAS} (READ_ONLY)")


def connect(data_dir: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection to the data directory's MIMIC-IV database (references, agent outputs, grading),
    with its eICU database attached as ``eicu`` when there is one.

    Raises M4AgentError saying what to do when the database is missing or cannot be opened (held by
    another program, read-only storage)."""
    db = database_path(data_dir, "mimic-iv")
    if not db.exists():
        raise M4AgentError(f"database {db} not found; create the data and its references with "
                           f"`m4agent quickstart --data-dir {data_dir}` (or `m4agent data synth` and "
                           f"`m4agent reference build --data-dir {data_dir}`)")
    try:
        try:
            con = duckdb.connect(str(db), read_only=read_only)
        except duckdb.ConnectionException:  # a dbt run of this process still holds the file
            release_dbt_handle()
            con = duckdb.connect(str(db), read_only=read_only)
    except duckdb.Error as exc:
        raise M4AgentError(explain(exc) or f"cannot open {db} ({exc})") from exc
    try:
        attach_eicu(con, data_dir)
    except duckdb.Error as exc:
        con.close()
        eicu = database_path(data_dir, "eicu")
        raise M4AgentError(explain(exc) or f"cannot attach {eicu} ({exc})") from exc
    return con


def sql_string(text: str) -> str:
    """``text`` as a single-quoted SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def quote_identifier(name: str) -> str:
    """``name`` as a double-quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'
