"""The references' dbt unit tests (``unit_tests:`` beside each reference model), one pytest test each.

The unit tests pin the references' cut-points, windows, ties and missing-data rules
with rows worked out by hand. They also run inside every ``dbt build`` of the
references; here they run on their own, so a broken cut-point is reported under
the unit test's name: the project is built empty (``--empty``: every model created
with its columns and no rows, which is all a unit test needs of its parents) on a
one-patient synthetic data set, then ``dbt test --select test_type:unit`` runs them
all, and each pytest test reads its unit test's result from dbt's run_results.json.
"""

from __future__ import annotations

import json

import pytest
import yaml

from m4agent.data.synth import synthesize
from m4agent.dbt.runner import artefact_dir, invoke
from m4agent.errors import M4AgentError
from m4agent.paths import PROJECT_ROOT

pytestmark = pytest.mark.slow


GRADING_MODELS = PROJECT_ROOT / "models" / "grading"  # their unit tests run in test_grading_rules.py


def _unit_tests() -> list[str]:
    """Names of the unit tests declared in the YAML of the reference project's models (not grading's)."""
    names = []
    for path in sorted((PROJECT_ROOT / "models").rglob("*.yml")):
        if path.is_relative_to(GRADING_MODELS):
            continue
        document = yaml.safe_load(path.read_text()) or {}
        names += [test["name"] for test in document.get("unit_tests", [])]
    return names


UNIT_TESTS = _unit_tests()


@pytest.fixture(scope="module")
def unit_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """unit test name -> its entry in run_results.json (status, message)."""
    data_dir = tmp_path_factory.mktemp("unit_tests")
    for dataset in ("mimic-iv", "eicu"):
        synthesize(dataset, data_dir, patients=1, seed=1)
    invoke(data_dir, ["build", "--empty", "--exclude", "test_type:unit", "test_type:data", "models/grading"])
    try:
        invoke(data_dir, ["test", "--select", "test_type:unit"])
    except M4AgentError:
        pass  # a failing unit test; its result is read below
    results = json.loads((artefact_dir(data_dir) / "target" / "run_results.json").read_text())["results"]
    return {entry["unique_id"].split(".")[-1]: entry for entry in results}


REFERENCE_DIR = PROJECT_ROOT / "models" / "marts" / "reference"


def test_every_reference_model_has_unit_tests_beside_it() -> None:
    """Each ref_*.yml declares unit tests: on the reference, or on the concept it only casts.

    A reference that only casts a mimic-code concept (MELD, SIRS, Charlson, ...) has its rules
    computed by that concept, so its YAML may pin them with unit tests whose model is the concept.
    """
    without = sorted(
        path.stem
        for path in REFERENCE_DIR.glob("ref_*.yml")
        if not (yaml.safe_load(path.read_text()) or {}).get("unit_tests")
    )
    assert without == [], f"reference YAML files without unit tests: {without}"


@pytest.mark.parametrize("name", UNIT_TESTS)
def test_unit_test_passes(unit_results: dict[str, dict], name: str) -> None:
    assert name in unit_results, f"dbt did not run unit test {name}"
    entry = unit_results[name]
    assert entry["status"] == "pass", entry.get("message")
