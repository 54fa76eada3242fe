"""dbt-project-evaluator's rules, checked on our manifest.

The evaluator package cannot be installed offline, so the rules that matter
here are checked directly; justified exceptions live in its exceptions seed
(`seeds/dbt_project_evaluator_exceptions.csv`).
"""

from __future__ import annotations

import csv
import fnmatch
import json

import pytest

from m4agent.dbt_runner import artefact_dir, invoke
from m4agent.paths import PROJECT_ROOT

PREFIXES = {"staging": "stg_", "intermediate": "int_", "marts": ("ref_", "fct_", "dim_"), "grading": ("grd_", "grading_")}


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data_dir = tmp_path_factory.mktemp("parse")
    invoke(data_dir, ["parse"])
    return json.loads((artefact_dir(data_dir) / "target" / "manifest.json").read_text())


def _exceptions(rule: str) -> list[str]:
    with (PROJECT_ROOT / "seeds" / "dbt_project_evaluator_exceptions.csv").open() as f:
        return [r["id_to_exclude"].replace("%", "*") for r in csv.DictReader(f) if r["fct_name"] == rule]


def _models(manifest: dict) -> list[dict]:
    return [n for n in manifest["nodes"].values() if n["resource_type"] == "model" and n["package_name"] == "m4agent"]


def test_every_model_and_source_is_described(manifest: dict) -> None:
    undocumented = [m["name"] for m in _models(manifest) if not m["description"].strip()]
    undocumented += [s["unique_id"] for s in manifest["sources"].values() if not s["description"].strip()]
    assert undocumented == []


def test_sources_are_read_only_by_staging(manifest: dict) -> None:
    offenders = [
        m["name"] for m in _models(manifest)
        if m["depends_on"]["nodes"] and not m["name"].startswith("stg_")
        and any(d.startswith("source.") for d in m["depends_on"]["nodes"])
        and m["fqn"][1] != "grading"  # agent outputs are sources read by grading models
    ]
    assert offenders == []


def test_no_staging_on_staging(manifest: dict) -> None:
    offenders = [
        m["name"] for m in _models(manifest)
        if m["name"].startswith("stg_") and any(d.startswith("model.m4agent.stg_") for d in m["depends_on"]["nodes"])
    ]
    assert offenders == []


def test_model_prefix_matches_layer(manifest: dict) -> None:
    wrong = []
    for m in _models(manifest):
        layer = m["fqn"][1]
        prefix = PREFIXES.get(layer)
        if prefix and not m["name"].startswith(prefix):
            wrong.append(m["name"])
    assert wrong == []


def test_every_model_has_a_primary_key_test(manifest: dict) -> None:
    tested: set[str] = set()
    for node in manifest["nodes"].values():
        if node["resource_type"] != "test":
            continue
        name = node.get("test_metadata", {}).get("name", "")
        if name in {"unique", "unique_combination_of_columns", "dbt_utils.unique_combination_of_columns"}:
            tested.update(d for d in node["depends_on"]["nodes"] if d.startswith("model."))
    exempt = _exceptions("fct_missing_primary_key_tests")
    missing = [
        m["name"] for m in _models(manifest)
        if m["unique_id"] not in tested and not any(fnmatch.fnmatch(m["name"], p) for p in exempt)
    ]
    assert missing == []
