"""The project's table and view materializations on DuckDB (macros/materializations, issue 28).

A model is rebuilt in place: the old relation is dropped and the new one created in one
transaction, so a rebuild leaves no temporary or backup relation behind, a failed rebuild leaves
the previous relation as it was, and contracts are enforced as by dbt-duckdb's own
materialization. Each test builds a throwaway dbt project holding these macros on a scratch
DuckDB file, with real dbt runs.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import duckdb
import pytest

from m4agent.dbt.duckdb_session import release_dbt_handle
from m4agent.paths import PROJECT_ROOT


class Project:
    """A one-model dbt project using the project's materializations."""

    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copytree(PROJECT_ROOT / "macros" / "materializations", root / "macros")
        (root / "models").mkdir()
        (root / "dbt_project.yml").write_text(textwrap.dedent("""\
            name: materializations
            version: "1.0.0"
            config-version: 2
            profile: materializations
        """))
        (root / "profiles.yml").write_text(textwrap.dedent(f"""\
            materializations:
              target: dev
              outputs:
                dev: {{type: duckdb, path: "{root / 'scratch.duckdb'}", threads: 1}}
        """))

    def build(self, sql: str, materialized: str = "table", contract: str | None = None) -> bool:
        """Write model `m` with ``sql`` (and, given ``contract``, a contract with one integer column
        `x` whose constraints are ``contract``, e.g. "[{type: not_null}]"), run `dbt build`; True when
        dbt succeeded."""
        from dbt.cli.main import dbtRunner

        (self.root / "models" / "m.sql").write_text(f"{{{{ config(materialized='{materialized}') }}}}\n{sql}\n")
        schema = self.root / "models" / "schema.yml"
        schema.unlink(missing_ok=True)
        if contract:
            schema.write_text(textwrap.dedent(f"""\
                version: 2
                models:
                  - name: m
                    config: {{contract: {{enforced: true}}}}
                    columns: [{{name: x, data_type: integer, constraints: {contract}}}]
            """))
        try:
            result = dbtRunner().invoke(["build", "--project-dir", str(self.root), "--profiles-dir",
                                         str(self.root), "--quiet"])
        finally:
            release_dbt_handle()
        return result.success

    def relations(self) -> dict[str, str]:
        """name -> table type ('BASE TABLE' or 'VIEW') of every relation in the scratch file."""
        con = duckdb.connect(str(self.root / "scratch.duckdb"), read_only=True)
        try:
            return dict(con.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall())
        finally:
            con.close()

    def rows(self) -> list[tuple]:
        con = duckdb.connect(str(self.root / "scratch.duckdb"), read_only=True)
        try:
            return con.execute("SELECT * FROM m ORDER BY ALL").fetchall()
        finally:
            con.close()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_a_rebuilt_table_holds_the_new_rows_and_nothing_else_is_left(project: Project) -> None:
    assert project.build("SELECT 1 AS x")
    assert project.build("SELECT 2 AS x UNION ALL SELECT 3")
    assert project.rows() == [(2,), (3,)]
    assert project.relations() == {"m": "BASE TABLE"}


def test_a_failed_rebuild_leaves_the_previous_table_as_it_was(project: Project) -> None:
    assert project.build("SELECT 1 AS x")
    assert not project.build("SELECT error('this model is broken') AS x")
    assert project.rows() == [(1,)]
    assert project.relations() == {"m": "BASE TABLE"}


def test_a_rebuilt_view_shows_the_new_query(project: Project) -> None:
    assert project.build("SELECT 1 AS x", materialized="view")
    assert project.build("SELECT 4 AS x", materialized="view")
    assert project.rows() == [(4,)]
    assert project.relations() == {"m": "VIEW"}


def test_a_model_turned_from_view_to_table_replaces_the_view(project: Project) -> None:
    assert project.build("SELECT 1 AS x", materialized="view")
    assert project.build("SELECT 5 AS x", materialized="table")
    assert project.relations() == {"m": "BASE TABLE"}
    assert project.rows() == [(5,)]


def test_a_model_turned_from_table_to_view_replaces_the_table(project: Project) -> None:
    assert project.build("SELECT 1 AS x", materialized="table")
    assert project.build("SELECT 6 AS x", materialized="view")
    assert project.relations() == {"m": "VIEW"}
    assert project.rows() == [(6,)]


def test_a_contracted_tables_constraint_is_enforced_and_keeps_the_previous_table(project: Project) -> None:
    assert project.build("SELECT 1 AS x", contract="[{type: not_null}]")
    assert not project.build("SELECT CAST(NULL AS INTEGER) AS x", contract="[{type: not_null}]")
    assert project.rows() == [(1,)]


def test_a_contract_fails_a_model_returning_another_type_and_keeps_the_previous_table(project: Project) -> None:
    assert project.build("SELECT 1 AS x", contract="[]")
    assert not project.build("SELECT 'one' AS x", contract="[]")
    assert project.rows() == [(1,)]
