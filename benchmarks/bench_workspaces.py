"""Benchmark: preparing the workspaces of all 28 tasks, our way against M4Bench's, time and disk.

    python benchmarks/bench_workspaces.py [--data-dir /tmp/b5k] [--work DIR] [--repeat 3]

The data directory (default ``/tmp/b5k``) is built first when it holds no built
databases: ``m4agent quickstart --patients 4700`` (5,111 ICU stays).

- **ours**: ``prepare(data_dir, "native")`` (the read-only Parquet export of
  ``mimiciv_hosp``, ``mimiciv_icu``, ``mimiciv_derived`` and ``eicu_crd``, counted
  whole), then per task ``plan_for`` and ``mounts`` (its hard-link folder), one
  database per distinct plan (13 for the 28 tasks) made by one ``setup_database.py``
  process, as the harness makes its templates at a campaign's start
  (``m4agent/harness/templates.py``; DATA_ROOT = the mount folder standing in for
  ``/data``), and a copy of the task's database into each of the 28 workspaces.
- **M4Bench, tables**: per task, M4Bench's ``setup_agent_db``: ``shutil.copy2`` of
  the source database, DROP of the task's relations (raw tasks: every relation of
  ``mimiciv_derived``), then ``compact_duckdb_file`` (ATTACH the copy and a new
  file, ``COPY FROM DATABASE``, replace); eICU tasks drop nothing and are not
  compacted. The source is our database with only the schemas M4Bench's has
  (``mimiciv_hosp``, ``mimiciv_icu``, ``mimiciv_derived``; ``eicu_crd``), all tables;
  making it is not counted. Our ``reference``, staging and value-set schemas would
  only make the baseline slower.
- **M4Bench, views**: the same, from a source shaped as M4Bench's really is: the
  source tables as views over Parquet files, only ``mimiciv_derived`` materialised,
  so each copy moves the derived tables only. Making the source and its Parquet is
  not counted (M4Bench's ``m4 init`` does it once), while our export is.

M4Bench then copies the task's cached database into each run's folder (§1.5);
``+ per-run copy`` times that for one run per task, the step our copy of a template
stands for, and the ratios are printed without and with it.

Disk is what each side leaves on disk (blocks of distinct files; hard links once),
not counting the source databases. Each side runs ``--repeat`` times from scratch,
alternating; the ratios use the medians. Wall time moves with the load of a shared
machine (printed after each run); CPU time (user + system, this process and its
children, DuckDB's threads included) moves much less, so both are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

from m4agent.paths import database_path
from m4agent.registry import Task, all_tasks
from m4agent.workspaces import SETUP_SCRIPT, mounts, plan_for, prepare

M4BENCH_SCHEMAS = {"mimic-iv": ("mimiciv_hosp", "mimiciv_icu", "mimiciv_derived"), "eicu": ("eicu_crd",)}
DERIVED = "mimiciv_derived"


def ensure_built(data_dir: Path, patients: int) -> None:
    """Synthesize and build ``data_dir`` unless both databases and the derived schema are there."""
    mimic = database_path(data_dir, "mimic-iv")
    if mimic.exists() and database_path(data_dir, "eicu").exists():
        with duckdb.connect(str(mimic), read_only=True) as con:
            derived = con.execute(
                "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ?", [DERIVED]
            ).fetchone()
        if derived and derived[0]:
            return
    print(f"building {data_dir} ({patients} patients per dataset) ...", flush=True)
    subprocess.run(
        ["m4agent", "quickstart", "--patients", str(patients), "--data-dir", str(data_dir)],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and its finished children so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def disk_bytes(*roots: Path) -> int:
    """Allocated bytes of the distinct files (by inode) under ``roots``."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for root in roots:
        if not root.exists():
            continue
        for path in [root, *root.rglob("*")]:
            st = path.lstat()
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


def link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


# ---------------------------------------------------------------- ours


def ours(
    data_dir: Path, work: Path, tasks: dict[str, Task]
) -> tuple[float, float, int, dict[str, float]]:
    """Time and disk of our preparation of every task's workspace, from scratch."""
    scratch = work / "ours"
    shutil.rmtree(scratch, ignore_errors=True)
    for dataset in ("mimic-iv", "eicu"):
        link_or_copy(database_path(data_dir, dataset), database_path(scratch / "data", dataset))
    runs = scratch / "runs"
    runs.mkdir(parents=True)
    start, cpu = time.perf_counter(), cpu_seconds()
    root = prepare(scratch / "data", "native")
    exported = time.perf_counter()
    # As the harness does (m4agent/harness/templates.py): one database per distinct plan, built by one
    # setup_database.py process, then copied into each task's workspace.
    templates = scratch / "templates"
    templates.mkdir()
    args: list[str] = []
    per_task: dict[str, Path] = {}
    for name, task in tasks.items():
        plan = plan_for(task, scratch / "data", "native")
        [(folder, _)] = mounts(plan, root)
        template = templates / f"{plan.digest[:24]}.duckdb"
        if template not in per_task.values():
            args += [str(plan.write(templates / f"{plan.digest[:24]}.json")), str(folder), str(template)]
        per_task[name] = template
    planned = time.perf_counter()
    subprocess.run([sys.executable, str(SETUP_SCRIPT), *args], check=True)
    built = time.perf_counter()
    for name, template in per_task.items():
        (runs / name).mkdir()
        shutil.copyfile(template, runs / name / "database.duckdb")
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    phases = {
        "export": exported - start,
        "plans and mounts": planned - exported,
        f"setup_database.py ({len(args) // 3} distinct plans, one process)": built - planned,
        "copies into 28 workspaces": seconds - (built - start),
    }
    return seconds, cpu, disk_bytes(scratch / "data" / "workspaces", runs), phases


# ---------------------------------------------------------------- M4Bench's way


def _make_sources(data_dir: Path, target: Path,
                  copy: Callable[[duckdb.DuckDBPyConnection, str, str], None]) -> dict[str, Path]:
    """Databases holding only M4Bench's schemas, each relation made by ``copy(con, schema, table)`` from
    the attached source ``s`` into ``d`` (not timed)."""
    sources = {}
    for dataset, schemas in M4BENCH_SCHEMAS.items():
        out = database_path(target, dataset)
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            con = duckdb.connect()
            con.execute(f"ATTACH '{database_path(data_dir, dataset)}' AS s (READ_ONLY)")
            con.execute(f"ATTACH '{out}.partial' AS d")
            for schema in schemas:
                con.execute(f"CREATE SCHEMA d.{schema}")
                for (table,) in con.execute(
                    "SELECT table_name FROM duckdb_tables() WHERE database_name = 's' AND schema_name = ? "
                    "ORDER BY 1",
                    [schema],
                ).fetchall():
                    copy(con, schema, table)
            con.close()
            os.replace(f"{out}.partial", out)
        sources[dataset] = out
    return sources


def _copy_table(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> None:
    con.execute(f'CREATE TABLE d.{schema}."{table}" AS SELECT * FROM s.{schema}."{table}"')


def make_table_sources(data_dir: Path, target: Path) -> dict[str, Path]:
    """Every relation a table."""
    return _make_sources(data_dir, target, _copy_table)


def make_view_sources(data_dir: Path, target: Path) -> dict[str, Path]:
    """M4Bench's shape: source tables as views over Parquet, derived tables materialised."""

    def copy(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> None:
        if schema == DERIVED:
            _copy_table(con, schema, table)
            return
        parquet = target / "parquet" / schema / f"{table}.parquet"
        parquet.parent.mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY s.{schema}.\"{table}\" TO '{parquet}' (FORMAT PARQUET, COMPRESSION ZSTD)")
        con.execute(f"CREATE VIEW d.{schema}.\"{table}\" AS SELECT * FROM read_parquet('{parquet}')")

    return _make_sources(data_dir, target, copy)


def compact(db: Path) -> None:
    """M4Bench's ``compact_duckdb_file``: copy the database into a new file, replace the old one."""
    tmp = db.with_suffix(".compact.duckdb")
    tmp.unlink(missing_ok=True)
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{db}' AS src")
        con.execute(f"ATTACH '{tmp}' AS dst")
        con.execute("COPY FROM DATABASE src TO dst")
    finally:
        con.close()
    db.unlink()
    tmp.replace(db)


def m4bench(sources: dict[str, Path], out_dir: Path, tasks: dict[str, Task]) -> tuple[float, float, int]:
    """Time and disk of M4Bench's copy, drop and compact for every task, from scratch."""
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    start, cpu = time.perf_counter(), cpu_seconds()
    for name, task in tasks.items():
        dest = out_dir / f"{name}.duckdb"
        shutil.copy2(sources[task.dataset], dest)
        con = duckdb.connect(str(dest))
        drops = {tuple(d.split(".", 1)) for d in task.drop_tables}
        if task.mode == "raw" and task.dataset == "mimic-iv":
            drops |= {
                (s, t)
                for s, t in con.execute(
                    "SELECT schema_name, table_name FROM duckdb_tables() WHERE schema_name = ? "
                    "UNION SELECT schema_name, view_name FROM duckdb_views() WHERE schema_name = ?",
                    [DERIVED, DERIVED],
                ).fetchall()
            }
        views = {
            (s, v) for s, v in con.execute("SELECT schema_name, view_name FROM duckdb_views()").fetchall()
        }
        for schema, table in sorted(drops):
            kind = "VIEW" if (schema, table) in views else "TABLE"
            con.execute(f'DROP {kind} IF EXISTS {schema}."{table}"')
        con.close()
        if drops:
            compact(dest)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return seconds, cpu, disk_bytes(out_dir)


def m4bench_run_copies(task_dbs: Path) -> tuple[float, float, int]:
    """M4Bench's per-run step (HARNESS.md §1.5): each cached task database copied into a run folder.

    Our ``setup_database.py`` run is the per-run step on our side, so a like-for-like
    comparison adds this one to M4Bench's; the copies are removed afterwards (disk 0).
    """
    runs = task_dbs.with_name(task_dbs.name + "_runs")
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir()
    start, cpu = time.perf_counter(), cpu_seconds()
    for db in sorted(task_dbs.glob("*.duckdb")):
        (runs / db.stem).mkdir()
        shutil.copy2(db, runs / db.stem / "database.duckdb")
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    shutil.rmtree(runs)
    return seconds, cpu, 0


# ---------------------------------------------------------------- report


def mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/b5k"))
    parser.add_argument("--patients", type=int, default=4700, help="when the data directory must be built")
    parser.add_argument("--work", type=Path, default=Path("/tmp/m4agent-bench-workspaces"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data_dir = args.data_dir.resolve()
    ensure_built(data_dir, args.patients)
    tasks = all_tasks()
    with duckdb.connect(str(database_path(data_dir, "mimic-iv")), read_only=True) as con:
        stays = con.execute("SELECT count(*) FROM mimiciv_icu.icustays").fetchone()
    print(f"{len(tasks)} tasks on {data_dir} ({stays[0] if stays else 0:,} ICU stays)")
    work = args.work.resolve()
    print("making M4Bench-shaped sources (not timed) ...", flush=True)
    table_sources = make_table_sources(data_dir, work / "m4bench_sources" / "tables")
    view_sources = make_view_sources(data_dir, work / "m4bench_sources" / "views")

    our_phases: list[dict[str, float]] = []

    def run_ours() -> tuple[float, float, int]:
        seconds, cpu, disk, phases = ours(data_dir, work, tasks)
        our_phases.append(phases)
        return seconds, cpu, disk

    sides: dict[str, Callable[[], tuple[float, float, int]]] = {
        "ours": run_ours,
        "M4Bench, tables": lambda: m4bench(table_sources, work / "m4bench_tables", tasks),
        "  + per-run copy": lambda: m4bench_run_copies(work / "m4bench_tables"),
        "M4Bench, views": lambda: m4bench(view_sources, work / "m4bench_views", tasks),
        "  + per-run copy ": lambda: m4bench_run_copies(work / "m4bench_views"),
    }
    walls: dict[str, list[float]] = {label: [] for label in sides}
    cpus: dict[str, list[float]] = {label: [] for label in sides}
    disks: dict[str, int] = {}
    for i in range(args.repeat):
        for label, run in sides.items():
            wall, cpu, disks[label] = run()
            walls[label].append(wall)
            cpus[label].append(cpu)
            load = os.getloadavg()[0]
            print(
                f"  {label} #{i + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU, {mib(disks[label])} (load {load:.2f})"
            )
    wall = {label: statistics.median(v) for label, v in walls.items()}
    cpu = {label: statistics.median(v) for label, v in cpus.items()}

    phases = {k: statistics.median(p[k] for p in our_phases) for k in our_phases[0]}
    print()
    print(f"{'side':<18}{'wall s':>10}{'CPU s':>10}{'disk':>16}")
    for label in sides:
        print(f"{label:<18}{wall[label]:>10.2f}{cpu[label]:>10.2f}{mib(disks[label]):>16}")
    print("ours, wall by phase: " + ", ".join(f"{k} {v:.2f} s" for k, v in phases.items()))
    for label, extra in (("M4Bench, tables", "  + per-run copy"), ("M4Bench, views", "  + per-run copy ")):
        print(
            f"ours / {label}: wall {100 * wall['ours'] / wall[label]:.1f}%, CPU {100 * cpu['ours'] / cpu[label]:.1f}%, "
            f"disk {100 * disks['ours'] / disks[label]:.1f}% (goal: at most 5%); with its per-run copies: "
            f"wall {100 * wall['ours'] / (wall[label] + wall[extra]):.1f}%, "
            f"CPU {100 * cpu['ours'] / (cpu[label] + cpu[extra]):.1f}%"
        )


if __name__ == "__main__":
    main()
