"""Run dbt (programmatically) against a data directory's databases.

The dbt project lives at the repository root. Paths to the DuckDB files are
passed through environment variables read by ``profiles.yml``; the build's
artefacts (``manifest.json``, ``run_results.json``, logs) go to
``DIR/dbt/`` so they sit beside the databases they describe.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import duckdb
from rich.console import Console

from m4agent.errors import M4AgentError
from m4agent.paths import PROJECT_ROOT, database_path
from m4agent.schema import tables

console = Console(stderr=True)


def artefact_dir(data_dir: Path) -> Path:
    return data_dir / "dbt"


def check_sources(data_dir: Path, datasets: Sequence[str] = ("mimic-iv", "eicu")) -> None:
    """Fail with one clear line when a source database or table is missing."""
    for dataset in datasets:
        db = database_path(data_dir, dataset)
        hint = (f"create it with `m4agent data synth --dataset {dataset} --data-dir {data_dir}` "
                f"or `m4agent data load --dataset {dataset} --src PATH --data-dir {data_dir}`")
        if not db.exists():
            raise M4AgentError(f"source database {db} not found; {hint}")
        con = duckdb.connect(str(db), read_only=True)
        try:
            present = {f"{s}.{t}" for s, t in con.execute(
                "SELECT table_schema, table_name FROM information_schema.tables").fetchall()}
        finally:
            con.close()
        for qualified in tables(dataset):
            if qualified not in present:
                raise M4AgentError(f"source table {qualified} missing from {db}; {hint}")


@contextmanager
def _environment(data_dir: Path, target: str = "target") -> Iterator[None]:
    saved = dict(os.environ)
    os.environ["M4AGENT_MIMIC_DB"] = str(database_path(data_dir, "mimic-iv"))
    os.environ["M4AGENT_EICU_DB"] = str(database_path(data_dir, "eicu"))
    os.environ["DBT_LOG_PATH"] = str(artefact_dir(data_dir) / "logs")
    os.environ["DBT_TARGET_PATH"] = str(artefact_dir(data_dir) / target)
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _release_duckdb() -> None:
    """dbt-duckdb keeps its DuckDB handle open after an in-process run; close it so the
    caller (and other connections with another configuration) can open the file."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    DuckDBConnectionManager.close_all_connections()


def invoke(data_dir: Path, args: Sequence[str], project_dir: Path | None = None,
           target: str = "target") -> object:
    """Run one dbt command (e.g. ``["build", "--select", "sofa"]``); raise on failure.

    ``project_dir`` runs another dbt project (with its own ``profiles.yml``) in the same
    environment, e.g. a trimmed copy used in development; by default this repository's.
    ``target`` names the folder under ``DIR/dbt`` for dbt's artefacts: a caller whose vars
    differ from the reference build's (grading) keeps its own, so each keeps its saved
    parse (``partial_parse.msgpack``) and dbt does not re-parse the project every time.
    """
    from dbt.cli.main import dbtRunner

    project = str(project_dir or PROJECT_ROOT)
    with _environment(data_dir, target):
        cli_args = [*args, "--project-dir", project, "--profiles-dir", project]
        try:
            result = dbtRunner().invoke(cli_args)
        finally:
            _release_duckdb()
    if not result.success:
        detail = f": {result.exception}" if result.exception else _node_errors(result.result)
        raise M4AgentError(
            f"dbt {' '.join(args)} failed{detail}; see {artefact_dir(data_dir) / 'logs' / 'dbt.log'}"
        )
    return result.result


def _node_errors(execution: object) -> str:
    """': <error of a node>; ...' for (up to three of) the nodes that errored in a dbt run."""
    errors = []
    for result in getattr(execution, "results", None) or []:
        if getattr(result.status, "value", result.status) == "error":
            lines = [line.strip() for line in (result.message or "error").splitlines() if line.strip()]
            errors.append(" ".join(lines[:2]))  # dbt's 'Runtime Error in model ...' and the database's reason
    return ": " + "; ".join(errors[:3]) if errors else ""


def build(data_dir: Path, select: str | None = None, datasets: Sequence[str] = ("mimic-iv", "eicu")) -> None:
    """``dbt build`` (seeds, models, tests) against the data directory's databases."""
    check_sources(data_dir, datasets)
    args = ["build"]
    if select:
        # Only run tests whose every parent is selected (relationship tests to unbuilt models would fail).
        args += ["--select", select, "--indirect-selection", "cautious"]
    console.print(f"[bold]dbt build[/] against {data_dir} (artefacts in {artefact_dir(data_dir)})")
    invoke(data_dir, args)
