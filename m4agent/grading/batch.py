"""One batch of runs through dbt: load the outputs, one ``dbt build`` of ``models/grading``, read the results.

The CSVs go into schema ``agent_outputs`` of the data directory's MIMIC-IV database (the dbt main
database, which also holds the references in schema ``reference``); ``dbt build`` of
``models/grading`` (with var ``m4_grading``; the models read the references through ``ref()``)
scores every run at once and runs the strict checks as generic tests whose failures are stored in
schema ``grading_failures``; the results are read back (with ``expectations``, each batch's strict
checks are validated again by the Great Expectations suites). Each call replaces the previous batch
in ``agent_outputs``; the rendered truth of the previous call is reused when its tasks, references
and SQL are unchanged (``truth_cache``). A failing dbt call raises ``GradingRunFailed``: whose fault
it is, a run's or the environment's, is ``grade``'s to tell.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from m4agent.dbt import duckdb_session
from m4agent.errors import M4AgentError
from m4agent.grading import truth_cache
from m4agent.grading.loader import Run, load_runs
from m4agent.locking import data_dir_lock
from m4agent.paths import PROJECT_ROOT

GRADING_SELECTOR = "path:models/grading"


# A grading call runs the grading models and the strict checks (the m4_* tests, whose failures are
# the verdict). Left out: the rule macros' unit tests and the model they run on (they test SQL, not
# a batch); the integrity tests of grading's own models and of the loaded batch (keys, not-null,
# accepted values, and the audit that reads every agent row), which hold by construction and which
# the test suite runs on real batches (tests/test_grading_integrity.py: `dbt build --select
# path:models/grading` with var m4_grading runs them all); and the verdict of every cell, built only
# when asked for (cell_verdicts).
CELLS_TAG = "tag:grading_cells"


INTEGRITY_TESTS = ("test_name:unique_combination_of_columns", "test_name:unique", "test_name:not_null",
                   "test_name:accepted_values", "tag:grading_audit")


GRADING_EXCLUDED = ("test_type:unit", "path:models/grading/rules", *INTEGRITY_TESTS)


FAILURE_TABLES = (
    "strict_output_present",
    "strict_required_columns",
    "strict_row_coverage",
    "strict_column_accuracy",
)


def rows_directory(data_dir: Path) -> Path:
    """Where the batch's agent rows are kept (Parquet, one file per run), read by agent_outputs.output_rows."""
    return data_dir / "agent_outputs"


def _built_references(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Reference tables in schema ``reference`` of the MIMIC-IV or the (attached) eICU database."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'reference'"
    ).fetchall()
    return {name for (name,) in rows}


class GradingRunFailed(M4AgentError):
    """dbt could not grade a batch (a model failed); grade_runs then isolates the run(s) at fault."""


def _run_dbt(data_dir: Path, exclude: Sequence[str] = (), cells: bool = False) -> None:
    from m4agent.dbt import runner as dbt_runner

    # The same vars on every call: dbt re-uses its saved parse of the project. Which tasks,
    # references and columns to grade is read by the models from agent_outputs at run time.
    # Grading reads its results from the database, never dbt's JSON artefacts: not writing
    # manifest.json and run_results.json saves seconds a call. The log file keeps dbt's info lines
    # (each model's timing, errors) without the SQL of every statement, megabytes a call that stay
    # readable in DIR/dbt/grading/compiled; and dbt lists only the schemas of the grading models at
    # its start, not every schema of the project. (Looking relations up one by one instead, with
    # --no-populate-cache, let two threads race in dbt's relation cache: one listing schema grading
    # while the other renamed a view into it failed the call.)
    args = ["build", "--select", GRADING_SELECTOR, "--vars", json.dumps({"m4_grading": True}), "--quiet",
            "--no-write-json", "--log-level-file", "info", "--cache-selected-only"]
    args += ["--exclude", *GRADING_EXCLUDED, *(() if cells else (CELLS_TAG,)), *exclude]
    try:
        dbt_runner.invoke(data_dir, args, target="grading")
    except M4AgentError as exc:
        raise GradingRunFailed(str(exc)) from exc


def _failing_runs(con: duckdb.DuckDBPyConnection) -> set[str]:
    failing: set[str] = set()
    for table in FAILURE_TABLES:
        try:
            rows = con.execute(f"SELECT DISTINCT run_id FROM grading_failures.{table}").fetchall()
        except duckdb.CatalogException:
            continue
        failing.update(run_id for (run_id,) in rows)
    return failing


def _collect(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    wanted = list(run_ids)
    columns = [
        "run_id", "task", "file_exists", "read_error", "comparison_error", "reward",
        "key_precision", "key_recall", "key_f1", "agent_rows", "agent_unique_keys", "extra_keys",
        "duplicate_rows", "truth_rows",
    ]
    rows = con.execute(
        f"SELECT {', '.join(columns)} FROM grading.fct_grading__results WHERE list_contains(?, run_id)", [wanted]
    ).fetchall()
    rates: dict[str, dict[str, float]] = {}
    for run_id, column, rate in con.execute(
        "SELECT run_id, column_name, match_rate_reported FROM grading.fct_grading__column_scores "
        "WHERE list_contains(?, run_id) ORDER BY run_id, position", [wanted]
    ).fetchall():
        rates.setdefault(run_id, {})[column] = float(rate)
    checks: dict[str, list[dict[str, Any]]] = {}
    for run_id, name, passed, detail in con.execute(
        "SELECT run_id, check_name, passed, detail FROM grading.fct_grading__run_checks "
        "WHERE list_contains(?, run_id) ORDER BY run_id, check_order", [wanted]
    ).fetchall():
        checks.setdefault(run_id, []).append({"name": name, "passed": bool(passed), "detail": detail or ""})
    failing = _failing_runs(con)
    results: dict[str, dict[str, Any]] = {}
    for row in rows:
        record = dict(zip(columns, row, strict=True))
        run_id = record["run_id"]
        errors = [record["comparison_error"]] if record["comparison_error"] else []
        results[run_id] = {
            "task": record["task"],
            "run_id": run_id,
            "reward": float(record["reward"]),
            "match_rates": rates.get(run_id, {}) if record["file_exists"] else {},
            "strict_pass": run_id not in failing,
            "checks": checks.get(run_id, []),
            "key_precision": float(record["key_precision"]),
            "key_recall": float(record["key_recall"]),
            "key_f1": float(record["key_f1"]),
            "agent_rows": int(record["agent_rows"]),
            "agent_unique_keys": int(record["agent_unique_keys"]),
            "extra_keys": int(record["extra_keys"]),
            "duplicate_rows": int(record["duplicate_rows"]),
            "truth_rows": int(record["truth_rows"]),
            "errors": errors,
        }
    return results


def require_unique_ids(runs: Sequence[Run]) -> None:
    """A batch's runs are told apart by run_id in every grading table."""
    if len({run.run_id for run in runs}) != len(runs):
        raise M4AgentError("run ids in one batch must be unique")


def grade_batch(runs: Sequence[Run], data_dir: Path, expectations: bool) -> dict[str, dict[str, Any]]:
    """grade_batch_unlocked holding the data directory's lock (``m4agent.locking``): a batch's outputs
    stay in agent_outputs from their load to the reading of its results, so no other grading (another
    process, or another thread) can replace them and have its scores read as this batch's."""
    with data_dir_lock(data_dir):
        return grade_batch_unlocked(runs, data_dir, expectations)


def grade_batch_unlocked(runs: Sequence[Run], data_dir: Path, expectations: bool,
                          cells: bool = False) -> dict[str, dict[str, Any]]:
    """Load the runs, run dbt once, read the results back (and validate them with the suites); with
    ``cells``, build every cell's verdict too (fct_grading__cell_verdicts, read by the caller)."""
    con = duckdb_session.connect(data_dir)
    try:
        missing = sorted({run.task.reference_model for run in runs} - _built_references(con))
        if missing:
            raise M4AgentError(f"reference tables not built: {', '.join(missing)}; run "
                               f"`m4agent reference build --data-dir {data_dir}` first")
        load_runs(con, runs, rows_directory(data_dir))
        truth = truth_cache.fingerprint(con, [run.task for run in runs], PROJECT_ROOT)
        reuse_truth = truth_cache.reusable(con, truth)
        if not reuse_truth:
            truth_cache.forget(con)
    finally:
        con.close()
    _run_dbt(data_dir, exclude=truth_cache.TRUTH_MODELS if reuse_truth else (), cells=cells)
    con = duckdb_session.connect(data_dir)
    try:
        if not reuse_truth:
            truth_cache.remember(con, truth)
        results = _collect(con, [run.run_id for run in runs])
    finally:
        con.close()
    if expectations:
        from m4agent.grading.expectations import validate_runs

        for run_id, verdict in validate_runs(data_dir, [(run.run_id, run.task) for run in runs]).items():
            results[run_id].update(expectations_pass=verdict["passed"], expectations_failed=verdict["failed"])
    return results
