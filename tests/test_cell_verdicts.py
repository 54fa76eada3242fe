"""Every cell's verdict (fct_grading__cell_verdicts, what ``m4agent view`` marks) agrees with grading's counts.

Perturbed copies of every task's exported reference (tests/support/perturb.py: edits within and
beyond the tolerance, dropped and repeated rows, reformatted timestamps, text in numeric columns)
are graded once with every cell's verdict; per run and scored column, the cells marked 'match' must
be the column's matched count in fct_grading__column_scores, in every comparison mode. Needs built
references: $M4AGENT_TEST_DATA_DIR, or the session's shared build (tests/conftest.py).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import duckdb
import pytest
from support.perturb import perturbations, read_rows

from m4agent.grading.grade import cell_verdicts, grade_runs
from m4agent.grading.loader import Run
from m4agent.reference_export import export
from m4agent.registry import all_tasks


@pytest.fixture(scope="module")
def data_dir(request: pytest.FixtureRequest) -> Path:
    given = os.environ.get("M4AGENT_TEST_DATA_DIR")
    if given:
        return Path(given)
    return request.getfixturevalue("harness_data_dir")


def _perturbed_runs(data_dir: Path, folder: Path, prefix: str) -> list[Run]:
    tasks = all_tasks()
    rng = random.Random(5)
    runs = []
    for name, task in tasks.items():
        makers = perturbations(task, read_rows(export(name, data_dir, folder / f"{name}.csv")), rng)
        for index in range(0, len(makers), 4):
            text = makers[index]()
            output = folder / "runs" / f"{prefix}{name}.{index}.csv"
            output.parent.mkdir(exist_ok=True)
            if text is not None:
                output.write_text(text, newline="")
            runs.append(Run(output.stem, task, output))
    return runs


@pytest.fixture(scope="module")
def graded(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The perturbed runs graded with every cell's verdict: their results, the verdict and the column
    score tables as that call left them."""
    runs = _perturbed_runs(data_dir, tmp_path_factory.mktemp("cells"), "")
    results, cells = cell_verdicts(runs, data_dir, limit=5)
    con = duckdb.connect(str(data_dir / "mimic_iv.duckdb"), read_only=True)
    try:
        verdicts = con.execute(
            "SELECT run_id, column_name, count_if(verdict = 'match') FROM grading.fct_grading__cell_verdicts "
            "WHERE role = 'scored' GROUP BY ALL").fetchall()
        scores = con.execute(
            "SELECT run_id, column_name, matched, mode FROM grading.fct_grading__column_scores "
            "WHERE in_output AND NOT comparison_failed").fetchall()
    finally:
        con.close()
    return {"runs": runs, "results": results, "cells": cells,
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
def test_a_grading_call_scores_as_the_verdict_call_and_builds_no_verdicts(graded: dict, data_dir: Path,
                                                                         tmp_path: Path) -> None:
    again = grade_runs([Run(f"again-{run.run_id}", run.task, run.output_path) for run in graded["runs"]], data_dir)
    differing = [run.run_id for run in graded["runs"]
                 if again[f"again-{run.run_id}"]["reward"] != graded["results"][run.run_id]["reward"]]
    assert differing == []
    con = duckdb.connect(str(data_dir / "mimic_iv.duckdb"), read_only=True)
    try:
        (rebuilt,) = con.execute("SELECT count(*) FROM grading.fct_grading__cell_verdicts "
                                 "WHERE run_id LIKE 'again-%'").fetchone()
    finally:
        con.close()
    assert rebuilt == 0
