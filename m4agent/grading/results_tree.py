"""Results trees: every run folder under a root graded in one pass, each given its ``result.json``.

A plain results tree (M4Bench's layout: ``<run>/run.json`` naming the task, ``<run>/output.csv``) is
hostile input: its files are opened only through ``run_files``, and which folders are runs is
``discovery``'s rule. Whatever a folder holds, the pass completes: a run that cannot be graded gets
the zero result with the reason; only a failure of the environment raises (``grade``).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from m4agent import discovery
from m4agent.errors import M4AgentError
from m4agent.grading import run_files
from m4agent.grading.grade import grade_runs_each_if_needed
from m4agent.grading.loader import Run
from m4agent.registry import TASKS_DIR, Task, all_tasks
from m4agent.run_folder import (
    OUTPUT_NAME,
    RESULT_FILE,
    RUN_FILE,
    remove_leftovers,
    write_json_each,
    zero_result,
)


@dataclass(frozen=True)
class BatchRun:
    """A run folder of a results tree: where it is and what to grade."""

    folder: Path
    run: Run | None
    problem: str | None = None


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
