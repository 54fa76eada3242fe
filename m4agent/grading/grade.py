"""Grade runs, telling a run's failure from the environment's.

A batch is graded in one dbt call (``batch``). Should dbt fail on it, whose fault that is decides
what is recorded: a run dbt fails on alone scores 0 with dbt's error as its reason (its output met a
defect of the grading SQL), while a failure no run can be graded through (a locked or damaged data
directory, a full disk) raises ``GradingRunFailed`` and records nothing, so no run is given a zero
that is not its own. Every grader (a campaign's, ``grade --results-root``, ``grade TASK FILE``)
goes through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError
from m4agent.grading.batch import GradingRunFailed, grade_batch, require_unique_ids
from m4agent.grading.loader import Run
from m4agent.registry import TASKS_DIR, all_tasks
from m4agent.run_folder import zero_result


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
    require_unique_ids(runs)
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


def _grade_isolating(runs: list[Run], data_dir: Path, expectations: bool) -> dict[str, dict[str, Any]]:
    """grade_batch, halving a batch dbt fails on (see grade_runs)."""
    try:
        return grade_batch(runs, data_dir, expectations)
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


def _grade_each(runs: Sequence[Run], data_dir: Path, expectations: bool) -> dict[str, dict[str, Any]]:
    """Grade run by run after dbt failed on a batch whose runs at fault halving could not single out:
    each run dbt fails on alone scores 0 with dbt's error. When no run can be graded at all, the fault
    is not the runs' (the environment): the first error is raised and nothing is recorded."""
    results: dict[str, dict[str, Any]] = {}
    failures: list[tuple[Run, GradingRunFailed]] = []
    for run in runs:
        try:
            results.update(grade_batch([run], data_dir, expectations))
        except GradingRunFailed as exc:
            failures.append((run, exc))
    if failures and not results:
        raise failures[0][1]
    for run, exc in failures:
        results[run.run_id] = zero_result(run.run_id, run.task.name, f"grading failed: {exc}", expectations)
    return results


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
