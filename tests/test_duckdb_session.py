"""Connections to a data directory's databases (m4agent.dbt.duckdb_session), on real DuckDB files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from m4agent.dbt import duckdb_session
from m4agent.errors import M4AgentError
from m4agent.paths import database_path


def _database(path: Path, schema: str, table: str) -> None:
    con = duckdb.connect(str(path))
    try:
        con.execute(f"CREATE SCHEMA {schema}")
        con.execute(f"CREATE TABLE {schema}.{table} AS SELECT 1 AS stay_id")
    finally:
        con.close()


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    """A data directory whose MIMIC-IV and eICU databases each hold one reference table."""
    _database(database_path(tmp_path, "mimic-iv"), "reference", "ref_mimic")
    _database(database_path(tmp_path, "eicu"), "reference", "ref_eicu")
    return tmp_path


def test_connect_attaches_the_eicu_database_as_eicu(data_dir: Path) -> None:
    con = duckdb_session.connect(data_dir)
    try:
        assert con.execute("SELECT stay_id FROM eicu.reference.ref_eicu").fetchall() == [(1,)]
        assert con.execute("SELECT stay_id FROM reference.ref_mimic").fetchall() == [(1,)]
    finally:
        con.close()


def test_connect_without_an_eicu_database_attaches_nothing(data_dir: Path) -> None:
    database_path(data_dir, "eicu").unlink()
    con = duckdb_session.connect(data_dir, read_only=True)
    try:
        names = {name for (name,) in con.execute("SELECT database_name FROM duckdb_databases()").fetchall()}
    finally:
        con.close()
    assert "eicu" not in names


def test_the_eicu_database_is_attached_read_only(data_dir: Path) -> None:
    con = duckdb_session.connect(data_dir)
    try:
        with pytest.raises(duckdb.Error):
            con.execute("CREATE TABLE eicu.reference.written AS SELECT 1")
    finally:
        con.close()


def test_attaching_eicu_twice_is_harmless(data_dir: Path) -> None:
    con = duckdb_session.connect(data_dir)
    try:
        duckdb_session.attach_eicu(con, data_dir)
        assert con.execute("SELECT COUNT(*) FROM eicu.reference.ref_eicu").fetchone() == (1,)
    finally:
        con.close()


def test_a_missing_database_says_how_to_make_it(tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="m4agent quickstart --data-dir"):
        duckdb_session.connect(tmp_path)


def test_a_database_held_by_another_program_says_so(data_dir: Path) -> None:
    """A lock held by another process (here: a writer in a child process) is an M4AgentError, not a
    DuckDB traceback."""
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('held', flush=True); "
         "time.sleep(60)", str(database_path(data_dir, "mimic-iv"))],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(M4AgentError):
            duckdb_session.connect(data_dir)
    finally:
        holder.kill()
        holder.wait()


def test_a_file_dbt_still_holds_is_released_and_opened(data_dir: Path) -> None:
    """dbt-duckdb's environment, opened on the database as an in-process dbt run leaves it, makes DuckDB
    refuse a read-only connection; connect releases it and opens the file."""
    from dbt.adapters.duckdb import environments
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    from dbt.adapters.duckdb.credentials import DuckDBCredentials

    environment = environments.create(DuckDBCredentials(path=str(database_path(data_dir, "mimic-iv"))))
    environment.handle()
    DuckDBConnectionManager._ENV = environment
    try:
        con = duckdb_session.connect(data_dir, read_only=True)
        con.close()
        assert DuckDBConnectionManager._ENV is None
    finally:
        duckdb_session.release_dbt_handle()
