"""M4Bench's strict checks as Great Expectations suites, derived from the one definition of the checks.

The strict checks are defined once, in ``macros/grading/strict_checks.sql``; the grading marts
report each check of each run under M4Bench's name (``fct_grading__run_checks``: test_output_exists,
test_output_is_valid_csv, test_has_required_columns, test_row_coverage and
test_score_accuracy[<column>], whether it passed). A task's suite expects every check M4Bench runs
for that task to be there and to have passed; its batch is one row per run with one column per
check. A run passes when the suite succeeds: a verdict read through Great Expectations beside the
dbt tests' ``strict_pass``, which the grading tests hold equal.

``validate_runs`` reads the batches from the grading tables after ``grade_runs``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from m4agent.paths import database_path
from m4agent.registry import Task

RUN_CHECKS = ("test_output_exists", "test_output_is_valid_csv", "test_has_required_columns", "test_row_coverage")


def check_names(task: Task) -> list[str]:
    """The strict checks M4Bench runs for a task, by the names fct_grading__run_checks gives them."""
    return [*RUN_CHECKS, *(f"test_score_accuracy[{column}]" for column in task.scored_columns)]


@cache
def _context() -> Any:
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    # no usage statistics, no progress bars: said in the context's own configuration
    return gx.get_context(mode="ephemeral", project_config=DataContextConfig(
        analytics_enabled=False, progress_bars=ProgressBarsConfig(globally=False),
        store_backend_defaults=InMemoryStoreBackendDefaults()))


@cache
def _batch_definition() -> Any:
    source = _context().data_sources.add_or_update_pandas("m4agent_strict")
    return source.add_dataframe_asset("strict_batches").add_batch_definition_whole_dataframe("strict_batch")


def build_suite(task: Task) -> Any:
    """The task's suite ``<task>.strict``: each of its checks passed (one expectation per check)."""
    import great_expectations as gx

    suite = gx.ExpectationSuite(name=f"{task.name}.strict")
    for name in check_names(task):
        suite.add_expectation(gx.expectations.ExpectColumnValuesToBeInSet(column=name, value_set=[True]))
    return suite


_REGISTERED: dict[str, Any] = {}


def _registered_suite(task: Task) -> Any:
    if task.name not in _REGISTERED:
        _REGISTERED[task.name] = _context().suites.add_or_update(build_suite(task))
    return _REGISTERED[task.name]


def _batch(con: duckdb.DuckDBPyConnection, run_id: str, task: Task) -> pd.DataFrame:
    """One row, one column per check of the task: whether the run passed it (a check not evaluated,
    as the later checks of an unreadable output, is not passed)."""
    passed = dict(con.execute(
        "SELECT check_name, passed FROM grading.fct_grading__run_checks WHERE run_id = ?", [run_id]).fetchall())
    return pd.DataFrame([{name: bool(passed.get(name, False)) for name in check_names(task)}])


def validate_runs(data_dir: Path, runs: Sequence[tuple[str, Task]]) -> dict[str, dict[str, Any]]:
    """Validate graded runs against their task's suite: {run_id: {passed, failed}}."""
    verdicts: dict[str, dict[str, Any]] = {}
    con = duckdb.connect(str(database_path(data_dir, "mimic-iv")), read_only=True)
    try:
        for run_id, task in runs:
            batch = _batch_definition().get_batch(batch_parameters={"dataframe": _batch(con, run_id, task)})
            result = batch.validate(_registered_suite(task))
            failed = [f"strict:{r.expectation_config.type}[{r.expectation_config.kwargs['column']}]"
                      for r in result.results if not r.success]
            verdicts[run_id] = {"passed": not failed, "failed": failed}
    finally:
        con.close()
    return verdicts
