"""Task workspaces: what each task's database exposes, what its container mounts, the export.

Every database here is made the way the harness makes it: ``setup_database.py`` run as a
process over a plan, reading the plan's hard-link mount folder (on the host, standing in
for the container's ``/data``).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from support.workspaces_data import built_data_dir, copy_databases

from m4agent.data.schema import EICU, MIMIC_IV
from m4agent.errors import M4AgentError
from m4agent.layout import DATA
from m4agent.registry import Task, all_tasks
from m4agent.workspaces import SETUP_SCRIPT, Plan, data_root, mounts, plan_for, prepare
from m4agent.workspaces.export import export_dataset

TASKS = all_tasks()
STANDARD = sorted(n for n, t in TASKS.items() if t.dataset == "mimic-iv" and t.mode == "standard")
DERIVED = "mimiciv_derived"


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = built_data_dir(tmp_path_factory.getbasetemp())
    prepare(root, "native")
    return root


def derived_tables(data_dir: Path) -> set[tuple[str, str]]:
    with duckdb.connect(str(data_dir / "mimic_iv.duckdb"), read_only=True) as con:
        rows = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE schema_name = ?", [DERIVED]
        )
        return {(s, t) for s, t in rows.fetchall()}


def run_setup(plan: Plan, data_root_dir: Path, out: Path) -> subprocess.CompletedProcess[str]:
    plan_file = plan.write(out.with_suffix(".plan.json"))
    return subprocess.run(
        [sys.executable, str(SETUP_SCRIPT), str(plan_file), str(data_root_dir), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )


def task_database(task: Task, data_dir: Path, folder: Path, variant: str = "native") -> tuple[Path, Path]:
    """(the task's database, the folder mounted at /data) made as the container makes them."""
    plan = plan_for(task, data_dir, variant)
    [(mount, _)] = mounts(plan, data_root(data_dir, variant))
    out = folder / f"{variant}.duckdb"
    result = run_setup(plan, mount, out)
    assert result.returncode == 0, result.stderr
    return out, mount


def views(db: Path) -> dict[tuple[str, str], str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal"
        ).fetchall()
    return {(s, v): sql for s, v, sql in rows}


def schemas(db: Path) -> set[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database() AND NOT internal"
        ).fetchall()
    return {s for (s,) in rows} - {"main"}


def mounted_files(mount: Path) -> set[str]:
    return {p.relative_to(mount).as_posix() for p in mount.rglob("*")}


def test_standard_task_database_exposes_exactly_sources_and_derived_minus_drops(
    data_dir: Path, tmp_path: Path
):
    task = TASKS["mimic-sofa-24h"]
    db, _ = task_database(task, data_dir, tmp_path)
    sources = {(t.schema, t.name) for t in MIMIC_IV.values()}
    dropped = {tuple(d.split(".", 1)) for d in task.drop_tables}
    assert dropped <= derived_tables(data_dir), "the test needs drops that exist"
    assert set(views(db)) == (sources | derived_tables(data_dir)) - dropped


@pytest.mark.parametrize("name", STANDARD)
def test_dropped_relations_are_never_named_in_catalog_view_sql_or_mounted_files(
    name: str, data_dir: Path, tmp_path: Path
):
    task = TASKS[name]
    db, mount = task_database(task, data_dir, tmp_path)
    exposed = views(db)
    visible = [f"{s}.{v}" for s, v in exposed] + sorted(schemas(db)) + sorted(mounted_files(mount))
    visible += [sql.replace(str(mount), "<data>") for sql in exposed.values()]
    for dropped in task.drop_tables:
        bare = dropped.split(".", 1)[1]
        leaks = [text for text in visible if bare in text]
        assert not leaks, f"{dropped} leaks through {leaks[:3]}"


def test_raw_task_database_has_no_derived_schema(data_dir: Path, tmp_path: Path):
    db, mount = task_database(TASKS["mimic-sofa-24h-raw"], data_dir, tmp_path)
    assert schemas(db) == {"mimiciv_hosp", "mimiciv_icu"}
    assert not (mount / DERIVED).exists()


def test_eicu_task_database_sees_only_eicu_crd(data_dir: Path, tmp_path: Path):
    db, mount = task_database(TASKS["eicu-gcs"], data_dir, tmp_path)
    assert set(views(db)) == {(t.schema, t.name) for t in EICU.values()}
    assert {p.split("/")[0] for p in mounted_files(mount)} == {"eicu_crd"}


def test_task_database_is_kilobytes_and_holds_only_views(data_dir: Path, tmp_path: Path):
    db, _ = task_database(TASKS["mimic-sofa-24h"], data_dir, tmp_path)
    with duckdb.connect(str(db), read_only=True) as con:
        tables = con.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
    assert tables == (0,)
    assert db.stat().st_size < 1024 * 1024


def test_task_database_views_return_the_source_rows(data_dir: Path, tmp_path: Path):
    db, _ = task_database(TASKS["mimic-sofa-24h"], data_dir, tmp_path)
    query = "SELECT * FROM mimiciv_icu.chartevents EXCEPT ALL SELECT * FROM src.mimiciv_icu.chartevents"
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute(f"ATTACH '{data_dir / 'mimic_iv.duckdb'}' AS src (READ_ONLY)")
        [(ours,)] = con.execute("SELECT count(*) FROM mimiciv_icu.chartevents").fetchall()
        [(theirs,)] = con.execute("SELECT count(*) FROM src.mimiciv_icu.chartevents").fetchall()
        assert ours == theirs > 0
        assert con.execute(query).fetchall() == []


def test_container_mounts_one_read_only_folder_of_links_to_exactly_the_planned_files(data_dir: Path):
    plan = plan_for(TASKS["mimic-kdigo-48h"], data_dir, "native")
    root = data_root(data_dir, "native")
    [(mount, target)] = mounts(plan, root)
    assert target == DATA
    files = {p for p in mounted_files(mount) if (mount / p).is_file()}
    assert files == set(plan.files)
    for rel in plan.files:
        assert os.stat(mount / rel).st_ino == os.stat(root / rel).st_ino


def test_exported_files_are_read_only(data_dir: Path):
    files = list(data_root(data_dir, "native").rglob("*.parquet"))
    assert files
    writable = [f for f in files if f.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)]
    assert writable == []


def test_exporting_again_rewrites_nothing_while_the_database_is_unchanged(data_dir: Path, tmp_path: Path):
    root = copy_databases(data_dir, tmp_path / "copy")
    assert export_dataset(root, "mimic-iv") is True
    files = sorted(data_root(root, "native").rglob("*.parquet"))
    before = [(f.stat().st_ino, f.stat().st_mtime_ns) for f in files]
    assert export_dataset(root, "mimic-iv") is False
    assert [(f.stat().st_ino, f.stat().st_mtime_ns) for f in files] == before


def test_changed_database_is_exported_again(data_dir: Path, tmp_path: Path):
    root = copy_databases(data_dir, tmp_path / "copy")
    export_dataset(root, "mimic-iv")
    with duckdb.connect(str(root / "mimic_iv.duckdb")) as con:
        con.execute(f"DROP TABLE {DERIVED}.sofa")
    assert export_dataset(root, "mimic-iv") is True
    assert not (data_root(root, "native") / DERIVED / "sofa.parquet").exists()


@pytest.mark.parametrize("path", ["mimiciv_hosp/*.parquet", "../x/y.parquet", "a/b'.parquet", "a/b.csv"])
def test_setup_script_refuses_a_plan_path_that_could_glob_or_escape(
    path: str, data_dir: Path, tmp_path: Path
):
    from m4agent.workspaces.plan import Relation

    out = tmp_path / "db.duckdb"
    result = run_setup(Plan("native", (Relation("s", "t", path),)), data_root(data_dir, "native"), out)
    assert result.returncode == 1
    assert "unsafe relation path" in result.stderr
    assert not out.exists()


def test_setup_script_refuses_to_overwrite_a_database(data_dir: Path, tmp_path: Path):
    out = tmp_path / "db.duckdb"
    out.write_text("an agent's earlier work")
    plan = plan_for(TASKS["eicu-gcs"], data_dir, "native")
    result = run_setup(plan, data_root(data_dir, "native"), out)
    assert result.returncode == 1
    assert out.read_text() == "an agent's earlier work"


def test_eicu_task_has_no_transformed_variant(data_dir: Path):
    with pytest.raises(M4AgentError, match="only the native variant"):
        plan_for(TASKS["eicu-oasis"], data_dir, "obfuscated")
