"""Run the original M4Bench ground truth (hannesill/m4) the way its judge does.

The original repository is read, never copied: SQL files, task definitions and
the comparison module come from a local git mirror at test time
(``$M4_ORIGINAL_REPO``, a bare or work-tree clone; there is no default). Only
scripts/regenerate_golden.py and the regeneration check use it: every other test
reads what it made, committed under tests/fixtures/golden/. Its ground truth reads ``mimiciv_derived`` as
built by m4-infra, so :func:`materialize_m4_derived` builds that schema in a
copy of a source database first.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
import types
from functools import cache
from pathlib import Path

import duckdb
import pandas as pd

ORIGINAL_REPO: Path | None = Path(os.environ["M4_ORIGINAL_REPO"]) if os.environ.get("M4_ORIGINAL_REPO") else None


def mirror_available() -> bool:
    """True when $M4_ORIGINAL_REPO names a checkout of hannesill/m4; False when the variable is unset.

    A variable that is set but names no readable checkout raises: a misconfigured run must
    fail, not pass with the comparisons silently skipped.
    """
    if ORIGINAL_REPO is None:
        return False
    probe = subprocess.run(
        ["git", "-C", str(ORIGINAL_REPO), "cat-file", "-e", "HEAD:benchmark/lib/compare.py"],
        capture_output=True, text=True,
    )
    if probe.returncode != 0:
        raise RuntimeError(f"M4_ORIGINAL_REPO={ORIGINAL_REPO} is not a readable checkout of hannesill/m4 "
                           f"({probe.stderr.strip() or 'benchmark/lib/compare.py missing'}); fix or unset it")
    return True


@cache
def original_file(path: str) -> str:
    """Text of ``path`` at the mirror's HEAD."""
    return subprocess.run(
        ["git", "-C", str(ORIGINAL_REPO), "show", f"HEAD:{path}"],
        capture_output=True, text=True, check=True,
    ).stdout


@cache
def original_task_paths() -> dict[str, str]:
    """Original task name -> path of its task.toml in the mirror."""
    listing = subprocess.run(
        ["git", "-C", str(ORIGINAL_REPO), "ls-tree", "-r", "--name-only", "HEAD", "benchmark/tasks"],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    return {Path(p).parent.name: p for p in listing if p.endswith("/task.toml")}


def original_task(task_name: str) -> dict:
    """The original task.toml of ``task_name`` as a dict."""
    return tomllib.loads(original_file(original_task_paths()[task_name]))


def ground_truth_alias(task_name: str) -> str:
    """The ground-truth SQL stem a task is graded against (its alias, else its own key)."""
    config = original_task(task_name)
    alias = config.get("ground_truth", {}).get("alias")
    if alias:
        return alias
    for prefix in ("mimic-", "eicu-"):
        if task_name.startswith(prefix):
            return task_name[len(prefix):]
    return task_name


@cache
def original_compare() -> types.ModuleType:
    """The original ``benchmark/lib/compare.py``, loaded as a module from the mirror."""
    module = types.ModuleType("m4bench_compare")
    exec(compile(original_file("benchmark/lib/compare.py"), "m4bench/compare.py", "exec"), module.__dict__)
    return module


def ground_truth_database(task_name: str, mimic_db: Path, eicu_db: Path) -> Path:
    """The database the original runs a task's ground truth on."""
    source = original_task(task_name).get("database", {}).get("source", "mimic-iv")
    return eicu_db if source == "eicu" else mimic_db


def materialize_m4_derived(source_db: Path, dest_db: Path, resolve_ties: bool = False,
                           threads: int | None = None) -> Path:
    """Copy ``source_db`` to ``dest_db`` and build m4-infra's ``mimiciv_derived`` in the copy.

    As built for the benchmark (m4-infra's ``materialize_all``) by default. With
    ``resolve_ties``, each of the original's arbitrary picks (conformance_exceptions.ORIGINAL_TIES)
    is left only the one our rule makes: the ties' resolutions run on the sources, or after the
    concept they name, and m4-infra's concept files run unchanged in its order around them.
    ``threads`` sets DuckDB's thread count for the build (scripts/probe_original_ties.py).
    """
    from m4.core.derived.materializer import materialize_all

    dest_db.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source_db, dest_db)
    if not resolve_ties and threads is None:
        materialize_all("mimic-iv", dest_db)
        return dest_db
    from conformance_exceptions import ORIGINAL_TIES
    from m4.core.derived.builtins import get_execution_order

    ties = [tie for tie in ORIGINAL_TIES if tie.resolution] if resolve_ties else []
    con = duckdb.connect(str(dest_db), config={"threads": threads} if threads else {})
    try:
        for tie in ties:
            if tie.resolve_after is None:
                con.execute(tie.resolution)
        con.execute("DROP SCHEMA IF EXISTS mimiciv_derived CASCADE")
        con.execute("CREATE SCHEMA mimiciv_derived")
        for sql_path in get_execution_order("mimic-iv"):
            con.execute(sql_path.read_text())
            for tie in ties:
                if tie.resolve_after == sql_path.stem:
                    con.execute(tie.resolution)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return dest_db


def run_ground_truth(db: Path, alias: str, task_name: str, out_csv: Path) -> pd.DataFrame:
    """Run ``benchmark/ground_truth/<alias>.sql`` on ``db`` and write the CSV as the original does.

    Like ``benchmark/lib/ground_truth.py``: the whole file is one statement; rows are
    sorted (stable) by the task's key columns then every other column, NULLs last;
    pandas writes the CSV without an index.
    """
    sql = original_file(f"benchmark/ground_truth/{alias}.sql")
    con = duckdb.connect(str(db), read_only=True)
    try:
        frame = con.execute(sql).df()
    finally:
        con.close()
    keys = [c for c in original_task(task_name)["evaluation"].get("key_columns", []) if c in frame]
    order = [*keys, *[c for c in frame.columns if c not in keys]]
    if order:
        frame = frame.sort_values(order, kind="mergesort", na_position="last")
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out_csv, index=False)
    return frame


def score(task_name: str, agent_csv: Path, truth_csv: Path) -> tuple[float, dict]:
    """M4Bench's reward of ``agent_csv`` against ``truth_csv`` under the original task's rules.

    Returns (reward, per-column results); reward is the mean match rate over the
    scored columns, as the original evaluator computes it.
    """
    compare = original_compare()
    evaluation = original_task(task_name)["evaluation"]
    scored = compare.scored_value_columns(evaluation)
    results = compare.compare_derived_tables(
        str(agent_csv), str(truth_csv),
        key_columns=list(evaluation["key_columns"]),
        value_columns=scored,
        tolerance=evaluation.get("tolerance", {}),
    )
    rates = [results[c]["match_rate"] for c in scored]
    return (sum(rates) / len(rates) if rates else 0.0), results
