"""The grading rules' dbt unit tests (macros/grading/rules, tested on models/grading/rules), one pytest test each.

Each M4Bench rule is one macro; its unit test in ``models/grading/rules/_grading_rules.yml`` pins
the rule with cases worked out by hand. Here the rule models are built on an empty database (they
read nothing but their own inputs) with var ``m4_grading`` on, then ``dbt test --select
test_type:unit`` runs the unit tests, and each pytest test reads its unit test's result from dbt's
run_results.json, so a broken rule is reported under its own name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from m4agent.dbt.runner import artefact_dir, invoke
from m4agent.errors import M4AgentError
from m4agent.paths import PROJECT_ROOT

RULES = Path("models") / "grading" / "rules"
VARS = json.dumps({"m4_grading": True})
UNIT_TESTS = [test["name"] for test in yaml.safe_load((PROJECT_ROOT / RULES / "_grading_rules.yml").read_text())
              ["unit_tests"]]


@pytest.fixture(scope="module")
def unit_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """unit test name -> its entry in run_results.json."""
    data_dir = tmp_path_factory.mktemp("grading_rules")
    invoke(data_dir, ["run", "--select", f"path:{RULES.as_posix()}", "--vars", VARS], target="grading")
    try:
        invoke(data_dir, ["test", "--select", f"test_type:unit,path:{RULES.as_posix()}", "--vars", VARS],
               target="grading")
    except M4AgentError:
        pass  # a failing unit test; its result is read below
    results = json.loads((artefact_dir(data_dir) / "grading" / "run_results.json").read_text())["results"]
    return {entry["unique_id"].split(".")[-1]: entry for entry in results}


def test_every_rule_macro_has_a_unit_test() -> None:
    documented = {m["name"] for m in yaml.safe_load(
        (PROJECT_ROOT / "macros" / "grading" / "rules" / "_rules.yml").read_text())["macros"]}
    tested = (PROJECT_ROOT / RULES / "grading_rule_cases.sql").read_text()
    assert [name for name in sorted(documented) if f"{name}(" not in tested] == []


@pytest.mark.parametrize("name", UNIT_TESTS)
def test_rule_unit_test_passes(unit_results: dict[str, dict], name: str) -> None:
    result = unit_results[name]
    assert result["status"] == "pass", result.get("message")
