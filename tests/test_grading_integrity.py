"""The integrity tests of grading's own models hold on a real batch.

A grading call runs the grading models and the strict checks only; the key, not-null and
accepted-value tests of the grading models and of the loaded batch, and the audit that reads every
agent row, hold by construction and are left out of it (``batch.INTEGRITY_TESTS``). Here a batch of
perturbed outputs of every task (tests/support/perturb.py) is graded, then every one of those tests
runs on what the call left, as a user's ``dbt test --select path:models/grading`` with var
m4_grading would. Needs built references: $M4AGENT_TEST_DATA_DIR, or the session's shared build.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.perturb import perturbed_runs

from m4agent.dbt.runner import artefact_dir, invoke
from m4agent.errors import M4AgentError
from m4agent.grading.batch import CELLS_TAG, GRADING_EXCLUDED, GRADING_SELECTOR
from m4agent.grading.grade import grade_runs
from m4agent.paths import PROJECT_ROOT


@pytest.fixture(scope="module")
def integrity_results(graded_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each integrity test's status after a batch was graded: test name -> pass, warn, fail or error."""
    runs = perturbed_runs(graded_data_dir, tmp_path_factory.mktemp("integrity"), seed=11, every=6)
    grade_runs(runs, graded_data_dir)
    args = ["test", "--select", GRADING_SELECTOR, "--vars", json.dumps({"m4_grading": True}),
            "--exclude", "test_type:unit", "path:models/grading/rules", CELLS_TAG]
    try:
        invoke(graded_data_dir, args, target="grading")
    except M4AgentError:
        pass  # a failing test; its status is read below
    results = json.loads((artefact_dir(graded_data_dir) / "grading" / "run_results.json").read_text())["results"]
    return {entry["unique_id"].split(".")[2]: entry["status"] for entry in results}


def test_the_batch_ran_a_key_test_of_every_grading_model(integrity_results: dict[str, str]) -> None:
    models = {path.stem for folder in ("staging", "intermediate", "marts")
              for path in (PROJECT_ROOT / "models" / "grading" / folder).glob("*.sql")}
    models.discard("fct_grading__cell_verdicts")  # built only for m4agent view; its key test: test_cell_verdicts.py
    keyed = {model for model in models for name in integrity_results
             if name.startswith((f"unique_combination_of_columns_{model}_", f"unique_{model}_"))}
    assert sorted(models - keyed) == []


def test_every_integrity_test_passes_on_a_graded_batch(integrity_results: dict[str, str]) -> None:
    strict = ("m4_output_present", "m4_required_columns", "m4_row_coverage", "m4_column_accuracy")
    failing = {name: status for name, status in integrity_results.items()
               if status != "pass" and not name.startswith(strict)}
    assert failing == {}


def test_a_grading_call_runs_none_of_them(integrity_results: dict[str, str], graded_data_dir: Path) -> None:
    """What a grading call runs: the grading models and the four strict checks, nothing else."""
    listed = invoke(graded_data_dir, ["ls", "--select", GRADING_SELECTOR, "--resource-type", "test",
                               "--vars", json.dumps({"m4_grading": True}), "--output", "name", "--quiet",
                               "--exclude", *GRADING_EXCLUDED, CELLS_TAG], target="grading")
    assert sorted(name.split("_fct_grading")[0] for name in listed) == [
        "m4_column_accuracy", "m4_output_present", "m4_required_columns", "m4_row_coverage"]
