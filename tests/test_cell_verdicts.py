"""Every cell's verdict (fct_grading__cell_verdicts, what ``m4agent view`` marks) agrees with grading's counts.

Perturbed copies of every task's exported reference (tests/support/perturb.py: edits within and
beyond the tolerance, dropped and repeated rows, reformatted timestamps, text in numeric columns)
are graded once with every cell's verdict; per run and scored column, the cells marked 'match' must
be the column's matched count in fct_grading__column_scores, in every comparison mode. Needs built
references: $M4AGENT_TEST_DATA_DIR, or the session's shared build (tests/conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from support.perturb import perturbed_runs

from m4agent.dbt.runner import invoke
from m4agent.errors import M4AgentError
from m4agent.grading.cells import cell_verdicts
from m4agent.grading.grade import grade_runs
from m4agent.grading.loader import Run


@pytest.fixture(scope="module")
def graded(graded_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The perturbed runs graded with every cell's verdict: their results, the verdict and the column
    score tables as that call left them."""
    runs = perturbed_runs(graded_data_dir, tmp_path_factory.mktemp("cells"), seed=5, every=4)
    results, cells = cell_verdicts(runs, graded_data_dir, limit=5)
    con = duckdb.connect(str(graded_data_dir / "mimic_iv.duckdb"), read_only=True)
    try:
        verdicts = con.execute(
            "SELECT run_id, column_name, count_if(verdict = 'match') FROM grading.fct_grading__cell_verdicts "
            "WHERE role = 'scored' GROUP BY ALL").fetchall()
        scores = con.execute(
            "SELECT run_id, column_name, matched, mode FROM grading.fct_grading__column_scores "
            "WHERE in_output AND NOT comparison_failed").fetchall()
    finally:
        con.close()
    key_test = "passed"
    try:  # the model's key test, which a view call leaves out with the other integrity tests
        invoke(graded_data_dir, ["test", "--select", "fct_grading__cell_verdicts", "--vars",
                                 json.dumps({"m4_grading": True}), "--exclude", "test_type:unit"], target="grading")
    except M4AgentError as exc:
        key_test = str(exc)
    return {"runs": runs, "results": results, "cells": cells, "key_test": key_test,
            "matches": {(run, column): n for run, column, n in verdicts},
            "scores": {(run, column): (matched, mode) for run, column, matched, mode in scores}}


@pytest.mark.slow
def test_cell_matches_sum_to_each_columns_matched_count(graded: dict) -> None:
    differing = {key: (graded["matches"].get(key, 0), matched, mode)
                 for key, (matched, mode) in graded["scores"].items() if graded["matches"].get(key, 0) != matched}
    assert differing == {}


@pytest.mark.slow
def test_the_perturbed_runs_compare_in_every_mode(graded: dict) -> None:
    modes = {mode for _, mode in graded["scores"].values()}
    assert {"numeric", "timestamp", "text"} <= modes


@pytest.mark.slow
def test_the_shown_rows_put_differing_rows_first_and_stop_at_the_limit(graded: dict) -> None:
    shown = [cells for cells in graded["cells"].values() if cells.differing_rows and cells.truth_rows > 5]
    assert shown, "some perturbed run must differ from a reference of more than five rows"
    for cells in shown:
        assert len(cells.rows) == 5
        marked = [any(verdict in ("mismatch", "missing") for *_, verdict in row) for row in cells.rows]
        assert marked == sorted(marked, reverse=True)


@pytest.mark.slow
def test_a_grading_call_scores_as_the_verdict_call_and_builds_no_verdicts(graded: dict, graded_data_dir: Path,
                                                                         tmp_path: Path) -> None:
    again = grade_runs([Run(f"again-{run.run_id}", run.task, run.output_path) for run in graded["runs"]], graded_data_dir)
    differing = [run.run_id for run in graded["runs"]
                 if again[f"again-{run.run_id}"]["reward"] != graded["results"][run.run_id]["reward"]]
    assert differing == []
    con = duckdb.connect(str(graded_data_dir / "mimic_iv.duckdb"), read_only=True)
    try:
        (rebuilt,) = con.execute("SELECT count(*) FROM grading.fct_grading__cell_verdicts "
                                 "WHERE run_id LIKE 'again-%'").fetchone()
    finally:
        con.close()
    assert rebuilt == 0


@pytest.mark.slow
def test_each_cell_has_one_verdict(graded: dict) -> None:
    assert graded["key_test"] == "passed"
