"""Grading against the real references: perturbed copies of every task's exported reference.

For each of the tasks, the reference is exported twice (the way M4Bench writes
ground truth, DuckDB -> pandas -> to_csv, and with `m4agent reference export`),
perturbed in the benchmark's ways, and graded in one dbt pass; reward, match
rates and the strict verdict must equal M4Bench's own code (read from the
mirror) to 1e-6. A second test does the same with random compositions of edits
(tests/fixtures/grading/fuzz.py). Needs built references: $M4AGENT_TEST_DATA_DIR,
or a small synthetic build made here.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import duckdb
import pytest
from fixtures.grading import original
from fixtures.grading.fuzz import compose
from support import pandas_oracle
from support.perturb import perturbations, read_rows

from m4agent.grading.grade import grade_runs
from m4agent.grading.loader import Run, slot_columns
from m4agent.reference_export import export
from m4agent.registry import all_tasks


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    given = os.environ.get("M4AGENT_TEST_DATA_DIR")
    if given:
        return Path(given)
    from m4agent.dbt_runner import build
    from m4agent.synth import synthesize

    root = tmp_path_factory.mktemp("grading_references")
    for dataset in ("mimic-iv", "eicu"):
        synthesize(dataset, root, patients=100, seed=11)
    build(root)
    return root


def _m4bench_truths(data_dir: Path, tasks: dict, folder: Path, suffix: str = "") -> dict[str, Path]:
    """Every task's reference written the way M4Bench writes ground truth (DuckDB -> pandas -> to_csv)."""
    con = duckdb.connect(str(data_dir / "mimic_iv.duckdb"), read_only=True)
    con.execute(f"ATTACH '{data_dir / 'eicu.duckdb'}' AS eicu (READ_ONLY)")
    try:
        return {name: pandas_oracle.export_truth(con, task, folder / f"{name}{suffix}.csv")
                for name, task in tasks.items()}
    finally:
        con.close()


def _mismatches(results: dict, expected: dict) -> dict:
    """Runs whose reward, strict verdict, match rates, extra keys or key precision differ from M4Bench's."""
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


@pytest.mark.slow
@pytest.mark.skipif(not original.available(), reason="mirror of hannesill/m4 not present")
def test_perturbed_references_score_as_m4bench(data_dir, tmp_path):
    tasks = all_tasks()
    truths = {(name, "pandas"): path for name, path in _m4bench_truths(data_dir, tasks, tmp_path, ".pandas").items()}
    for name in tasks:
        truths[(name, "export")] = export(name, data_dir, tmp_path / f"{name}.export.csv")
    rng = random.Random(3)
    runs, expected = [], {}
    for (name, style), truth in truths.items():
        makers = perturbations(tasks[name], read_rows(truth), rng)
        for index in range(0, len(makers), 3 if style == "pandas" else 5):
            output = tmp_path / "runs" / f"{name}.{style}.{index}.csv"
            output.parent.mkdir(exist_ok=True)
            output.write_text(makers[index](), newline="")
            runs.append(Run(output.stem, tasks[name], output))
            expected[output.stem] = original.evaluate(tasks[name].path, output, truth)
    results = grade_runs(runs, data_dir)
    assert not _mismatches(results, expected)
    # the runs of tasks sharing a reference and its columns (a task and its -raw twin) go through one query
    # (counted in two parts built side by side, int_grading__column_counts_large and _small)
    compiled = "".join((data_dir / "dbt" / "grading" / "compiled" / "m4agent" / "models" / "grading"
                        / f"int_grading__column_counts_{part}.sql").read_text() for part in ("large", "small"))
    shared = {(task.reference_model, tuple(slot_columns(task)), tuple(sorted(task.tolerance.items())))
              for task in tasks.values()}
    assert compiled.count("output_rows.task IN (") == len(shared) < len(tasks)
    # and a reference read into the same slots is rendered once, for the first of its tasks by name
    con = duckdb.connect(str(data_dir / "mimic_iv.duckdb"), read_only=True)
    shares = dict(con.execute("SELECT task, truth_task FROM grading.int_grading__truth_tasks").fetchall())
    rendered = {task for (task,) in con.execute("SELECT DISTINCT task FROM grading.int_grading__truth_rows").fetchall()}
    con.close()

    def reading(task):
        return task.reference_model, task.dataset, tuple(task.key_columns), tuple(slot_columns(task))

    first_by_name = {reading(task): name for name, task in sorted(tasks.items(), reverse=True)}
    assert shares == {name: first_by_name[reading(task)] for name, task in tasks.items()}
    assert rendered == set(shares.values()) and len(rendered) < len(tasks)
    assert shares["mimic-urine-output-rate-raw"] == "mimic-urine-output-rate"
    assert any(r["strict_pass"] for r in results.values()) and any(r["reward"] == 0 for r in results.values())


@pytest.mark.slow
@pytest.mark.skipif(not original.available(), reason="mirror of hannesill/m4 not present")
def test_random_edits_score_as_m4bench(data_dir, tmp_path):
    tasks = all_tasks()
    truths = _m4bench_truths(data_dir, tasks, tmp_path)
    rng = random.Random(2026)
    runs, expected, edits = [], {}, {}
    for name, truth in truths.items():
        rows = read_rows(truth)
        for index in range(3):
            names, text = compose(tasks[name], rows, rng)
            output = tmp_path / "fuzz" / f"{name}.{index}.csv"
            output.parent.mkdir(exist_ok=True)
            output.write_text(text, newline="")
            runs.append(Run(output.stem, tasks[name], output))
            edits[output.stem] = names
            expected[output.stem] = original.evaluate(tasks[name].path, output, truth)
    results = grade_runs(runs, data_dir)
    assert {run_id: (edits[run_id], *scores) for run_id, scores in _mismatches(results, expected).items()} == {}
    # the edits reach both outcomes: some outputs still pass, some fail
    assert any(r["strict_pass"] for r in results.values()) and any(not r["strict_pass"] for r in results.values())
