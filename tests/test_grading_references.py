"""Grading against the real references: perturbed copies of every task's exported reference.

For each of the tasks, the reference is exported twice (the way M4Bench writes
ground truth, DuckDB -> pandas -> to_csv, and with `m4agent reference export`),
perturbed in the benchmark's ways, and graded in one dbt pass; reward, match
rates and the strict verdict must equal the pandas restatement of M4Bench's rules
(tests/support/pandas_oracle.py) to 1e-6; a second test does the same with random
compositions of edits (tests/fixtures/grading/fuzz.py). M4Bench's own verdicts on
perturbed and edited copies of its ground truth, graded against our references, are
committed and checked in tests/test_references.py. Needs built references:
$M4AGENT_TEST_DATA_DIR, or the session's shared build (tests/conftest.py).
"""

from __future__ import annotations

import random
from pathlib import Path

import duckdb
import pytest
from fixtures.grading.fuzz import compose
from support import pandas_oracle
from support.perturb import perturbations, read_rows

from m4agent.grading.grade import grade_runs
from m4agent.grading.loader import Run, slot_columns
from m4agent.reference_export import export
from m4agent.registry import all_tasks


def _m4bench_truths(graded_data_dir: Path, tasks: dict, folder: Path, suffix: str = "") -> dict[str, Path]:
    """Every task's reference written the way M4Bench writes ground truth (DuckDB -> pandas -> to_csv)."""
    con = duckdb.connect(str(graded_data_dir / "mimic_iv.duckdb"), read_only=True)
    con.execute(f"ATTACH '{graded_data_dir / 'eicu.duckdb'}' AS eicu (READ_ONLY)")
    try:
        return {name: pandas_oracle.export_truth(con, task, folder / f"{name}{suffix}.csv")
                for name, task in tasks.items()}
    finally:
        con.close()


def _mismatches(results: dict, expected: dict) -> dict:
    """Runs whose reward, strict verdict, match rates, extra keys or key precision differ from the expected."""
    mismatches = {}
    for run_id, theirs in expected.items():
        ours = results[run_id]
        same = (abs(ours["reward"] - theirs["reward"]) <= 1e-6
                and ours["strict_pass"] == theirs["strict_pass"]
                and ours["match_rates"].keys() == theirs["match_rates"].keys()
                and all(abs(ours["match_rates"][c] - theirs["match_rates"][c]) <= 1e-6
                        for c in theirs["match_rates"])
                and ours["extra_keys"] == theirs["extra_keys"]
                and abs(ours["key_precision"] - theirs["key_precision"]) <= 1e-6)
        if not same:
            mismatches[run_id] = (ours["reward"], theirs["reward"], ours["strict_pass"], theirs["strict_pass"])
    return mismatches


def _pandas_verdicts(runs: list[Run], truths: dict[str, Path]) -> dict[str, dict]:
    return {run.run_id: pandas_oracle.grade(run.task, run.output_path, truths[run.run_id]) for run in runs}


@pytest.fixture(scope="module")
def perturbed(graded_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """Perturbed copies of every task's reference in both export styles, graded in one pass:
    (our results, the pandas restatement's verdicts) by run id."""
    tmp_path = tmp_path_factory.mktemp("perturbed")
    tasks = all_tasks()
    truths = {(name, "pandas"): path for name, path in _m4bench_truths(graded_data_dir, tasks, tmp_path, ".pandas").items()}
    for name in tasks:
        truths[(name, "export")] = export(name, graded_data_dir, tmp_path / f"{name}.export.csv")
    rng = random.Random(3)
    runs, truth_of = [], {}
    for (name, style), truth in truths.items():
        makers = perturbations(tasks[name], read_rows(truth), rng)
        for index in range(0, len(makers), 3 if style == "pandas" else 5):
            output = tmp_path / "runs" / f"{name}.{style}.{index}.csv"
            output.parent.mkdir(exist_ok=True)
            text = makers[index]()
            if text is not None:
                output.write_text(text, newline="")
            runs.append(Run(output.stem, tasks[name], output))
            truth_of[output.stem] = truth
    return grade_runs(runs, graded_data_dir), _pandas_verdicts(runs, truth_of)


@pytest.mark.slow
def test_perturbed_references_grade_as_the_restatement(perturbed: tuple[dict, dict]) -> None:
    results, expected = perturbed
    assert _mismatches(results, expected) == {}


@pytest.mark.slow
def test_perturbed_references_reach_both_verdicts(perturbed: tuple[dict, dict]) -> None:
    results = perturbed[0].values()
    assert any(r["strict_pass"] for r in results) and any(r["reward"] == 0 for r in results)


@pytest.mark.slow
def test_tasks_sharing_a_reference_and_columns_are_counted_in_one_query(perturbed: tuple[dict, dict],
                                                                        graded_data_dir: Path) -> None:
    """The runs of tasks sharing a reference and its columns (a task and its -raw twin) go through
    one query of int_grading__cell_counts."""
    tasks = all_tasks()
    compiled = (graded_data_dir / "dbt" / "grading" / "compiled" / "m4agent" / "models" / "grading" / "intermediate"
                / "int_grading__cell_counts.sql").read_text()
    shared = {(task.reference_model, tuple(slot_columns(task)), tuple(sorted(task.tolerance.items())))
              for task in tasks.values()}
    assert compiled.count("output_rows.task IN (") == len(shared) < len(tasks)


@pytest.mark.slow
def test_a_reference_read_into_the_same_slots_is_rendered_once(perturbed: tuple[dict, dict], graded_data_dir: Path) -> None:
    """A reference read into the same slots is rendered once, for the first of its tasks by name."""
    tasks = all_tasks()
    con = duckdb.connect(str(graded_data_dir / "mimic_iv.duckdb"), read_only=True)
    try:
        shares = dict(con.execute("SELECT task, truth_task FROM grading.int_grading__truth_tasks").fetchall())
        rendered = {task for (task,) in con.execute(
            "SELECT DISTINCT task FROM grading.int_grading__truth_rows").fetchall()}
    finally:
        con.close()

    def reading(task):
        return task.reference_model, task.dataset, tuple(task.key_columns), tuple(slot_columns(task))

    first_by_name = {reading(task): name for name, task in sorted(tasks.items(), reverse=True)}
    assert shares == {name: first_by_name[reading(task)] for name, task in tasks.items()}
    assert rendered == set(shares.values()) and len(rendered) < len(tasks)
    assert shares["mimic-urine-output-rate-raw"] == "mimic-urine-output-rate"


@pytest.mark.slow
def test_random_edits_grade_as_the_restatement(graded_data_dir: Path, tmp_path: Path) -> None:
    tasks = all_tasks()
    truths = _m4bench_truths(graded_data_dir, tasks, tmp_path)
    rng = random.Random(2026)
    runs, truth_of, edits = [], {}, {}
    for name, truth in truths.items():
        rows = read_rows(truth)
        for index in range(3):
            names, text = compose(tasks[name], rows, rng)
            output = tmp_path / "fuzz" / f"{name}.{index}.csv"
            output.parent.mkdir(exist_ok=True)
            output.write_text(text, newline="")
            runs.append(Run(output.stem, tasks[name], output))
            edits[output.stem] = names
            truth_of[output.stem] = truth
    results = grade_runs(runs, graded_data_dir)
    mismatches = _mismatches(results, _pandas_verdicts(runs, truth_of))
    assert {run_id: (edits[run_id], *scores) for run_id, scores in mismatches.items()} == {}
    # the edits reach both outcomes: some outputs still pass, some fail
    assert any(r["strict_pass"] for r in results.values()) and any(not r["strict_pass"] for r in results.values())
