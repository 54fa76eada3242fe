"""The integrity tests of grading's own models hold on a real batch.

A grading call runs the grading models and the strict checks only; the key, not-null and
accepted-value tests of the grading models and of the loaded batch, and the audit that reads every
agent row, hold by construction and are left out of it (``grade.INTEGRITY_TESTS``). Here a batch of
perturbed outputs of every task (tests/support/perturb.py) is graded, then every one of those tests
runs on what the call left, as a user's ``dbt test --select path:models/grading`` with var
m4_grading would. Needs built references: $M4AGENT_TEST_DATA_DIR, or the session's shared build.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from support.perturb import perturbations, read_rows

from m4agent.dbt_runner import artefact_dir, invoke
from m4agent.errors import M4AgentError
from m4agent.grading.grade import CELLS_TAG, GRADING_EXCLUDED, GRADING_SELECTOR, grade_runs
from m4agent.grading.loader import Run
from m4agent.reference_export import export
from m4agent.registry import all_tasks


@pytest.fixture(scope="module")
def data_dir(request: pytest.FixtureRequest) -> Path:
    given = os.environ.get("M4AGENT_TEST_DATA_DIR")
    if given:
        return Path(given)
    return request.getfixturevalue("harness_data_dir")


@pytest.fixture(scope="module")
def integrity_results(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each integrity test's status after a batch was graded: test name -> pass, warn, fail or error."""
    folder = tmp_path_factory.mktemp("integrity")
    rng = random.Random(11)
    runs = []
    for name, task in all_tasks().items():
        makers = perturbations(task, read_rows(export(name, data_dir, folder / f"{name}.csv")), rng)
        for index in range(0, len(makers), 6):
            text = makers[index]()
            output = folder / "runs" / f"{name}.{index}.csv"
            output.parent.mkdir(exist_ok=True)
            if text is not None:
                output.write_text(text, newline="")
            runs.append(Run(output.stem, task, output))
    grade_runs(runs, data_dir)
    args = ["test", "--select", GRADING_SELECTOR, "--vars", json.dumps({"m4_grading": True}),
            "--exclude", "test_type:unit", "path:models/grading/rules", CELLS_TAG]
    try:
        invoke(data_dir, args, target="grading")
    except M4AgentError:
        pass  # a failing test; its status is read below
    results = json.loads((artefact_dir(data_dir) / "grading" / "run_results.json").read_text())["results"]
    return {entry["unique_id"].split(".")[2]: entry["status"] for entry in results}


def test_the_batch_ran_the_key_tests_of_every_grading_model(integrity_results: dict[str, str]) -> None:
    assert any(name.startswith("unique_combination_of_columns_int_grading__cell_counts")
               for name in integrity_results)
    assert any(name.startswith("unique_combination_of_columns_fct_grading__results") or
               name.startswith("unique_fct_grading__results") for name in integrity_results)


def test_every_integrity_test_passes_on_a_graded_batch(integrity_results: dict[str, str]) -> None:
    strict = ("m4_output_present", "m4_required_columns", "m4_row_coverage", "m4_column_accuracy")
    failing = {name: status for name, status in integrity_results.items()
               if status != "pass" and not name.startswith(strict)}
    assert failing == {}


def test_a_grading_call_runs_none_of_them(integrity_results: dict[str, str], data_dir: Path) -> None:
    """What a grading call runs: the grading models and the four strict checks, nothing else."""
    listed = invoke(data_dir, ["ls", "--select", GRADING_SELECTOR, "--resource-type", "test",
                               "--vars", json.dumps({"m4_grading": True}), "--output", "name", "--quiet",
                               "--exclude", *GRADING_EXCLUDED, CELLS_TAG], target="grading")
    assert sorted(name.split("_fct_grading")[0] for name in listed) == [
        "m4_column_accuracy", "m4_output_present", "m4_required_columns", "m4_row_coverage"]
