"""M4Bench's strict checks as Great Expectations suites, generated from each task's config.

A second, independent verdict path beside the dbt generic tests. Per task,
three suites, each validated on its own batch of a graded run:

- ``<task>.output``: the agent output itself (its header and rows): at least
  one row, every required column present (exact names);
- ``<task>.coverage``: one row per truth row with ``key_found`` (the agent
  supplied the key, comparison not failed): mean >= row_coverage_threshold;
- ``<task>.accuracy``: one row with each scored column's match rate:
  each >= accuracy_threshold.

A run passes when all three suites succeed. ``validate_runs`` reads the
batches from the grading tables after ``grade_runs``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from m4agent import duckdb_session
from m4agent.registry import Task

SUITE_PARTS = ("output", "coverage", "accuracy")


@cache
def _context() -> Any:
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


@cache
def _batch_definition(part: str) -> Any:
    context = _context()
    source = context.data_sources.add_or_update_pandas(f"m4agent_{part}")
    asset = source.add_dataframe_asset(f"{part}_batches")
    return asset.add_batch_definition_whole_dataframe(f"{part}_batch")


def build_suites(task: Task) -> dict[str, Any]:
    """The three expectation suites of a task, named ``<task>.<part>``."""
    import great_expectations as gx

    required = list(task.required_columns or (*task.key_columns, *task.value_columns))
    output = gx.ExpectationSuite(name=f"{task.name}.output")
    output.add_expectation(gx.expectations.ExpectTableRowCountToBeBetween(min_value=1))
    output.add_expectation(gx.expectations.ExpectTableColumnsToMatchSet(column_set=required, exact_match=False))
    coverage = gx.ExpectationSuite(name=f"{task.name}.coverage")
    coverage.add_expectation(gx.expectations.ExpectColumnMeanToBeBetween(
        column="key_found", min_value=task.row_coverage_threshold))
    accuracy = gx.ExpectationSuite(name=f"{task.name}.accuracy")
    for column in task.scored_columns:
        accuracy.add_expectation(gx.expectations.ExpectColumnValuesToBeBetween(
            column=column, min_value=task.accuracy_threshold))
    return {"output": output, "coverage": coverage, "accuracy": accuracy}


_REGISTERED: dict[str, dict[str, Any]] = {}


def _registered_suites(task: Task) -> dict[str, Any]:
    if task.name not in _REGISTERED:
        context = _context()
        _REGISTERED[task.name] = {part: context.suites.add_or_update(suite)
                                  for part, suite in build_suites(task).items()}
    return _REGISTERED[task.name]


def _find_keys(con: duckdb.DuckDBPyConnection) -> None:
    """Temp table ``found_keys``: the truth rows whose key each graded run supplies (none for a run whose
    comparison failed), from one pass over the view ``int_grading__agent_keys`` for the whole batch.
    A query per run would plan the view's per-task SQL each time and group every run's keys."""
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE found_keys AS
        SELECT DISTINCT keys.run_number, keys.truth_row
        FROM grading.int_grading__agent_keys AS keys
        INNER JOIN grading.int_grading__runs AS runs ON keys.run_number = runs.run_number
        INNER JOIN grading.fct_grading__results AS results ON results.run_id = runs.run_id
        WHERE keys.truth_row IS NOT NULL AND results.comparison_error IS NULL
        """)


def _batches(con: duckdb.DuckDBPyConnection, run_id: str, task: Task) -> dict[str, pd.DataFrame]:
    exists, read_error, rows, header = con.execute(
        "SELECT file_exists, read_error, COALESCE(agent_rows, 0), header "
        "FROM agent_outputs.output_files WHERE run_id = ?", [run_id]).fetchone()
    readable = exists and read_error is None
    output = pd.DataFrame(index=range(rows if readable else 0), columns=list(header or []) if readable else [])
    run_number = con.execute("SELECT run_number FROM grading.int_grading__runs WHERE run_id = ?", [run_id]
                             ).fetchone()
    found = con.execute(
        """
        SELECT (found.truth_row IS NOT NULL) AS key_found
        FROM grading.int_grading__truth_tasks AS truth_tasks
        INNER JOIN grading.int_grading__truth_values AS truth ON truth.task = truth_tasks.truth_task
        LEFT JOIN found_keys AS found ON found.run_number = $run_number AND truth.truth_row = found.truth_row
        WHERE truth_tasks.task = $task AND $run_number IS NOT NULL
        """, {"run_number": run_number[0] if run_number else None, "task": task.name}).df()
    found["key_found"] = found["key_found"].astype(int)
    rates = dict(con.execute(
        "SELECT column_name, match_rate FROM grading.fct_grading__column_scores WHERE run_id = ?", [run_id]
    ).fetchall())
    accuracy = pd.DataFrame([{column: rates.get(column, 0.0) for column in task.scored_columns}])
    return {"output": output, "coverage": found, "accuracy": accuracy}


def validate_runs(data_dir: Path, runs: Sequence[tuple[str, Task]]) -> dict[str, dict[str, Any]]:
    """Validate graded runs against their task's suites: {run_id: {passed, failed}}."""
    verdicts: dict[str, dict[str, Any]] = {}
    con = duckdb_session.connect(data_dir)
    try:
        _find_keys(con)
        for run_id, task in runs:
            suites = _registered_suites(task)
            failed: list[str] = []
            for part, frame in _batches(con, run_id, task).items():
                batch = _batch_definition(part).get_batch(batch_parameters={"dataframe": frame})
                result = batch.validate(suites[part])
                failed += [
                    f"{part}:{r.expectation_config.type}{_column(r)}" for r in result.results if not r.success
                ]
            verdicts[run_id] = {"passed": not failed, "failed": failed}
    finally:
        con.close()
    return verdicts


def _column(result: Any) -> str:
    column = result.expectation_config.kwargs.get("column")
    return f"[{column}]" if column else ""
