"""Grade agent outputs: load them, run the grading models in one dbt call, collect results.

Python only orchestrates. The CSVs go into schema ``agent_outputs`` of the
data directory's MIMIC-IV database (the dbt main database, which also holds
the references in schema ``reference``); ``dbt build`` of ``models/grading``
(with var ``m4_grading``; the models read the references through ``ref()``)
scores every run at once and runs the strict checks as generic tests whose
failures are stored in schema ``grading_failures``;
the results are read back (with ``expectations``, each batch's strict checks
are validated again by the Great Expectations suites) and, for a results tree,
written as each run's ``result.json``. Each call replaces the previous batch in ``agent_outputs``;
the rendered truth of the previous call is reused when its tasks, references
and SQL are unchanged (``truth_cache``).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from m4agent import duckdb_session
from m4agent.errors import M4AgentError
from m4agent.grading import run_files, truth_cache
from m4agent.grading.loader import Run, load_runs
from m4agent.harness import discovery
from m4agent.locking import data_dir_lock
from m4agent.paths import PROJECT_ROOT
from m4agent.registry import TASKS_DIR, Task, all_tasks
from m4agent.run_folder import (
    OUTPUT_NAME,
    RESULT_FILE,
    RUN_FILE,
    remove_leftovers,
    write_json_each,
    zero_result,
)

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


@dataclass(frozen=True)
class BatchRun:
    """A run folder of a results tree: where it is and what to grade."""

    folder: Path
    run: Run | None
    problem: str | None = None


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
    from m4agent import dbt_runner

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


def grade_runs(runs: Sequence[Run], data_dir: Path, expectations: bool = False) -> dict[str, dict[str, Any]]:
    """Grade a batch of runs in one dbt invocation; results by run_id.

    With ``expectations``, the Great Expectations suites validate each run right
    after the dbt call that graded it (the grading tables then hold its batch),
    and its result gets ``expectations_pass`` and ``expectations_failed``: a
    second verdict beside ``strict_pass``.

    Should dbt fail on the batch (no known output makes it; a failure would be a
    defect of the grading SQL met by some output), the batch is halved and each half
    graded on its own, down to the run at fault, which scores 0 with dbt's error as
    its reason while the others keep their scores: about two dbt calls per halving.
    Runs at fault are each found while no split leaves two of them side by side;
    otherwise (several at fault together, a failure of the environment such as a
    locked database, or a batch of one run) the error is raised, after about one
    call per halving."""
    if not runs:
        return {}
    _require_unique_ids(runs)
    return _grade_isolating(list(runs), data_dir, expectations)


def grade_runs_each_if_needed(runs: Sequence[Run], data_dir: Path, expectations: bool = False) -> dict[str, dict[str, Any]]:
    """``grade_runs``, then run by run where halving could not single out the runs at fault
    (``_grade_each``): a run dbt fails on alone scores 0, but a failure no run can be graded through
    (the environment's: a locked or damaged data directory, a full disk) raises ``GradingRunFailed``
    and records nothing, so no run is given a zero that is not its own. Every grader uses this."""
    try:
        return grade_runs(runs, data_dir, expectations)
    except GradingRunFailed:
        return _grade_each(runs, data_dir, expectations)


def _require_unique_ids(runs: Sequence[Run]) -> None:
    """A batch's runs are told apart by run_id in every grading table."""
    if len({run.run_id for run in runs}) != len(runs):
        raise M4AgentError("run ids in one batch must be unique")


def _grade_isolating(runs: list[Run], data_dir: Path, expectations: bool) -> dict[str, dict[str, Any]]:
    """_grade_batch, halving a batch dbt fails on (see grade_runs)."""
    try:
        return _grade_batch(runs, data_dir, expectations)
    except GradingRunFailed:
        if len(runs) == 1:
            raise
    results: dict[str, dict[str, Any]] = {}
    at_fault: list[tuple[Run, GradingRunFailed]] = []
    for part in (runs[:len(runs) // 2], runs[len(runs) // 2:]):
        try:
            results.update(_grade_isolating(part, data_dir, expectations))
        except GradingRunFailed as exc:
            if len(part) > 1 or at_fault:  # more than one run at fault, or not a run's fault
                raise
            at_fault.append((part[0], exc))
    for run, exc in at_fault:
        results[run.run_id] = zero_result(run.run_id, run.task.name, f"grading failed: {exc}", expectations)
    return results


def _grade_batch(runs: Sequence[Run], data_dir: Path, expectations: bool) -> dict[str, dict[str, Any]]:
    """_grade_batch_unlocked holding the data directory's lock (``m4agent.locking``): a batch's outputs
    stay in agent_outputs from their load to the reading of its results, so no other grading (another
    process, or another thread) can replace them and have its scores read as this batch's."""
    with data_dir_lock(data_dir):
        return _grade_batch_unlocked(runs, data_dir, expectations)


def _grade_batch_unlocked(runs: Sequence[Run], data_dir: Path, expectations: bool,
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


@dataclass(frozen=True)
class CellVerdicts:
    """A run's output against its reference, cell by cell, as grading compared them (``cell_verdicts``).

    ``rows``: up to ``limit`` reference rows, those with a mismatching or missing cell first, then in
    the reference's order; each a list of (column, role, reference's text, agent's text, verdict) in
    the task's column order (verdict None for a key column). ``truth_rows``: all reference rows;
    ``differing_rows``: those with a mismatching or missing cell."""

    rows: list[list[tuple[str, str, str | None, str | None, str | None]]]
    truth_rows: int
    differing_rows: int


_CELL_ROWS = """
WITH verdicts AS (
    SELECT * FROM grading.fct_grading__cell_verdicts WHERE list_contains($runs, run_id)
),

truth_rows AS (
    SELECT run_id, truth_row, bool_or(verdict IN ('mismatch', 'missing')) AS differs
    FROM verdicts
    GROUP BY run_id, truth_row
),

shown AS (
    SELECT
        *,
        row_number() OVER (PARTITION BY run_id ORDER BY differs DESC, truth_row) AS shown_order,
        count(*) OVER (PARTITION BY run_id) AS n_truth_rows,
        count_if(differs) OVER (PARTITION BY run_id) AS n_differing_rows
    FROM truth_rows
)

SELECT verdicts.run_id, shown.shown_order, shown.n_truth_rows, shown.n_differing_rows, verdicts.column_name,
       verdicts.role, verdicts.truth_value, verdicts.agent_value, verdicts.verdict
FROM verdicts
INNER JOIN shown ON verdicts.run_id = shown.run_id AND verdicts.truth_row = shown.truth_row
WHERE shown.shown_order <= $limit
ORDER BY verdicts.run_id, shown.shown_order, verdicts.slot
"""


def _collect_cells(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str], limit: int) -> dict[str, CellVerdicts]:
    """Each run's shown rows of fct_grading__cell_verdicts, read in one query for the batch."""
    rows: dict[str, dict[int, list[tuple[str, str, str | None, str | None, str | None]]]] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for run_id, order, truth_rows, differing, column, role, truth_value, agent_value, verdict in con.execute(
            _CELL_ROWS, {"runs": list(run_ids), "limit": limit}).fetchall():
        rows.setdefault(run_id, {}).setdefault(order, []).append((column, role, truth_value, agent_value, verdict))
        sizes[run_id] = (truth_rows, differing)
    return {run_id: CellVerdicts(rows=list(rows.get(run_id, {}).values()), truth_rows=sizes.get(run_id, (0, 0))[0],
                                 differing_rows=sizes.get(run_id, (0, 0))[1]) for run_id in run_ids}


def cell_verdicts(runs: Sequence[Run], data_dir: Path, limit: int = 300,
                  ) -> tuple[dict[str, dict[str, Any]], dict[str, CellVerdicts]]:
    """Grade the runs in one dbt call with every cell's verdict (model fct_grading__cell_verdicts,
    the rule macros applied cell by cell); their results and, for each run grading could compare,
    its cells (``CellVerdicts``, up to ``limit`` reference rows). For showing an output against its
    reference (``m4agent view``); nothing is written beside the runs."""
    if not runs:
        return {}, {}
    _require_unique_ids(runs)
    with data_dir_lock(data_dir):
        results = _grade_batch_unlocked(runs, data_dir, expectations=False, cells=True)
        con = duckdb_session.connect(data_dir)
        try:
            return results, _collect_cells(con, [run.run_id for run in runs], limit)
        finally:
            con.close()


def _single_run_id(output: Path) -> str:
    return output.parent.name if output.stem == "output" and output.parent.name else output.stem


def grade_file(task_name: str, output: Path, data_dir: Path, tasks_dir: Path = TASKS_DIR,
               expectations: bool = False) -> dict[str, Any]:
    """Grade one CSV against one task (``expectations``: see grade_runs)."""
    tasks = all_tasks(tasks_dir)
    if task_name not in tasks:
        raise M4AgentError(f"unknown task {task_name!r}; `m4agent tasks list` shows the {len(tasks)} tasks")
    run = Run(run_id=_single_run_id(output), task=tasks[task_name], output_path=output)
    return grade_runs([run], data_dir, expectations=expectations)[run.run_id]


RUN_JSON_MAX_BYTES = 1 << 20


def _task_of(folder: Path, tasks: dict[str, Task]) -> tuple[Task | None, str | None]:
    """The task a run folder's run.json names, or why there is none."""
    try:
        handle, _ = run_files.open_in_folder(folder, RUN_FILE, max_bytes=RUN_JSON_MAX_BYTES)
    except run_files.MissingFile:
        return None, f"{OUTPUT_NAME} found but no {RUN_FILE} naming its task"
    except run_files.UnsafeFile as exc:
        return None, str(exc)
    try:
        with handle:
            payload = json.loads(handle.read())
    except Exception as exc:  # noqa: BLE001 - any malformed run.json is the run's problem
        return None, f"cannot read {RUN_FILE}: {type(exc).__name__}: {str(exc)[:200]}"
    task_name = payload.get("task") if isinstance(payload, dict) else None
    if not isinstance(task_name, str):
        return None, f"{RUN_FILE} names no task (a string under 'task'): {str(payload)[:200]}"
    if task_name not in tasks:
        return None, f"{RUN_FILE} names unknown task {task_name[:200]!r}"
    return tasks[task_name], None


def discover_runs(root: Path, tasks: dict[str, Task]) -> list[BatchRun]:
    """Every run folder under ``root`` holding a run.json (or an output.csv without one), with its task
    and output.csv, or the reason it cannot be graded. Which folders are runs is ``discovery``'s rule (never
    an attempt's or a workspace's files; links not entered); a path covering a campaign's runs is refused,
    since only the harness knows their outcomes (``M4AgentError``). Never
    raises for what a run folder holds: a link, a directory, a pipe or a malformed file is that run's
    problem (run_files)."""
    where = discovery.find(root, (RUN_FILE, OUTPUT_NAME))
    covered = [runs for runs in where.campaigns if runs.specs]
    if covered:
        # a campaign's result.json holds the harness's outcome (a policy violation, a timeout), which a
        # grade of its output cannot know: overwriting it would let a violation's output score again
        campaign_dir = covered[0].folder
        raise M4AgentError(f"{root} holds the runs of the campaign {campaign_dir}: the harness grades them as "
                           f"they finish and keeps their outcomes; `m4agent campaign run --dir {campaign_dir}` "
                           f"grades runs awaiting it and `m4agent report {campaign_dir}` reads the results "
                           "(`grade --results-root` grades plain results trees)")
    found = []
    for folder in where.folders:
        run_id = folder.relative_to(root).as_posix() if folder != root else folder.name
        task, problem = _task_of(folder, tasks)
        if task is None:
            found.append(BatchRun(folder, None, problem))
        else:
            found.append(BatchRun(folder, Run(run_id, task, folder / OUTPUT_NAME)))
    return found


def _graded_already(folder: Path) -> bool:
    """A result.json that is a regular file (a link or anything else in its place is graded again)."""
    try:
        return stat.S_ISREG(os.lstat(folder / RESULT_FILE).st_mode)
    except OSError:
        return False


def _grade_each(runs: Sequence[Run], data_dir: Path, expectations: bool) -> dict[str, dict[str, Any]]:
    """Grade run by run after dbt failed on a batch whose runs at fault halving could not single out:
    each run dbt fails on alone scores 0 with dbt's error. When no run can be graded at all, the fault
    is not the runs' (the environment): the first error is raised and nothing is recorded."""
    results: dict[str, dict[str, Any]] = {}
    failures: list[tuple[Run, GradingRunFailed]] = []
    for run in runs:
        try:
            results.update(_grade_batch([run], data_dir, expectations))
        except GradingRunFailed as exc:
            failures.append((run, exc))
    if failures and not results:
        raise failures[0][1]
    for run, exc in failures:
        results[run.run_id] = zero_result(run.run_id, run.task.name, f"grading failed: {exc}", expectations)
    return results


def grade_results_root(root: Path, data_dir: Path, force: bool = False, tasks_dir: Path = TASKS_DIR,
                       expectations: bool = False) -> dict[str, dict[str, Any]]:
    """Grade every run folder under ``root`` in one pass and write each ``result.json``
    (``expectations``: see grade_runs).

    Whatever a run folder holds, the campaign completes: a run that cannot be graded (its run.json or
    output.csv missing, malformed, a link, not a regular file; dbt failing on it) gets reward 0 and
    the reason. Temporary files of an interrupted write are removed first. A result.json that cannot
    be written is reported in that run's ``errors`` (in the returned result only)."""
    if not root.is_dir():
        raise M4AgentError(f"results root {root} is not a directory")
    discovered = discover_runs(root, all_tasks(tasks_dir))
    for batch_run in discovered:
        remove_leftovers(batch_run.folder, (RESULT_FILE,))
    batch = [b for b in discovered if force or not _graded_already(b.folder)]
    results: dict[str, dict[str, Any]] = {}
    for batch_run in batch:
        if batch_run.run is None:
            run_id = batch_run.folder.relative_to(root).as_posix() if batch_run.folder != root else root.name
            results[run_id] = zero_result(run_id, None, batch_run.problem or "not graded", expectations)
    runs = [b.run for b in batch if b.run is not None]
    results.update(grade_runs_each_if_needed(runs, data_dir, expectations))
    ids = [batch_run.run.run_id if batch_run.run else (
        batch_run.folder.relative_to(root).as_posix() if batch_run.folder != root else root.name) for batch_run in batch]
    failed = write_json_each([(b.folder / RESULT_FILE, results[run_id]) for b, run_id in zip(batch, ids, strict=True)],
                             sort_keys=False)
    written: dict[str, dict[str, Any]] = {}
    for batch_run, run_id in zip(batch, ids, strict=True):
        result = results[run_id]
        exc = failed.get(batch_run.folder / RESULT_FILE)
        if exc is not None:
            result = {**result, "errors": [*result["errors"], f"{RESULT_FILE} could not be written: {exc}"]}
        written[run_id] = result
    return written


_STAGES = ("CSV read failed", "Comparison failed", "grading failed")


def failure_summary(results: dict[str, dict[str, Any]]) -> list[tuple[str, int]]:
    """How many runs failed for each kind of reason (the first error up to its first colon, or its
    second after a stage such as ``CSV read failed``; numbers and quoted text blanked), most frequent
    first."""
    kinds: dict[str, int] = {}
    for result in results.values():
        if result["errors"]:
            parts = result["errors"][0].split(": ")
            kind = ": ".join(parts[:2] if parts[0] in _STAGES and len(parts) > 1 else parts[:1])
            kind = re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'...'", kind))[:160]
            kinds[kind] = kinds.get(kind, 0) + 1
    return sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
