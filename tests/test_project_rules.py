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

from m4agent.dbt.runner import artefact_dir, invoke
from m4agent.paths import PROJECT_ROOT

PREFIXES = {"staging": "stg_", "intermediate": "int_", "marts": ("ref_", "fct_", "dim_"), "grading": ("grd_", "grading_")}
# The grading models are enabled only with this var (`m4agent grade` sets it): the rules cover them too.
GRADING_VARS = json.dumps({"m4_grading": True})


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data_dir = tmp_path_factory.mktemp("parse")
    invoke(data_dir, ["parse", "--vars", GRADING_VARS])
    return json.loads((artefact_dir(data_dir) / "target" / "manifest.json").read_text())


def _exceptions(rule: str) -> list[str]:
    with (PROJECT_ROOT / "seeds" / "dbt_project_evaluator_exceptions.csv").open() as f:
        return [r["id_to_exclude"].replace("%", "*") for r in csv.DictReader(f) if r["fct_name"] == rule]


def _models(manifest: dict) -> list[dict]:
    return [n for n in manifest["nodes"].values() if n["resource_type"] == "model" and n["package_name"] == "m4agent"]


def test_the_grading_models_are_checked(manifest: dict) -> None:
    assert {"stg_agent_outputs__output_rows", "int_grading__column_counts", "fct_grading__results"} <= {
        m["name"] for m in _models(manifest)}


def test_every_model_and_source_is_described(manifest: dict) -> None:
    undocumented = [m["name"] for m in _models(manifest) if not m["description"].strip()]
    undocumented += [s["unique_id"] for s in manifest["sources"].values() if not s["description"].strip()]
    assert undocumented == []


def test_sources_are_read_only_by_staging(manifest: dict) -> None:
    offenders = [
        m["name"] for m in _models(manifest)
        if m["depends_on"]["nodes"] and not m["name"].startswith("stg_")
        and any(d.startswith("source.") for d in m["depends_on"]["nodes"])
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
        # the innermost layer folder decides (models/grading/intermediate/ is an intermediate layer)
        layers = [folder for folder in m["fqn"][1:-1] if folder in PREFIXES]
        prefix = PREFIXES.get(layers[-1]) if layers else None
        if prefix and not m["name"].startswith(prefix):
            wrong.append(m["name"])
    assert wrong == []


def _is_key_test(node: dict) -> bool:
    """A primary-key test: dbt's unique, (dbt_utils') unique_combination_of_columns, or our
    column_rules with a key (macros/tests/test_column_rules.sql)."""
    if node["resource_type"] != "test":
        return False
    metadata = node.get("test_metadata") or {}
    name = metadata.get("name", "")
    return (name in {"unique", "unique_combination_of_columns", "dbt_utils.unique_combination_of_columns"}
            or (name == "column_rules" and bool(metadata.get("kwargs", {}).get("key"))))


def test_every_model_has_a_primary_key_test(manifest: dict) -> None:
    tested: set[str] = set()
    for node in manifest["nodes"].values():
        if _is_key_test(node):
            tested.update(d for d in node["depends_on"]["nodes"] if d.startswith("model."))
    exempt = _exceptions("fct_missing_primary_key_tests")
    missing = [
        m["name"] for m in _models(manifest)
        if m["unique_id"] not in tested and not any(fnmatch.fnmatch(m["name"], p) for p in exempt)
    ]
    assert missing == []


# Models whose key tests only warn, and why: their keys rest on the source data (event rows that
# real MIMIC-IV or eICU may repeat), which must not take the references away (issue 21).
# Every other model with a key test must have one at severity error.
KEYS_THAT_WARN = {
    "stg_*": "staging views carry the source tables' keys: a repeat in real data is reported, never blocking",
    "int_eicu__*": "eICU nursecharting and intake/output rows keyed by source row ids and offsets real data repeats",
    "int_mimiciv_medication__*": "inputevents/prescriptions rows are the grain; real orders repeat a start time",
    "int_mimiciv_measurement__chemistry": "labevents specimens: a specimen_id repeated in the source is reported",
    "int_mimiciv_measurement__complete_blood_count": "labevents specimens, as chemistry",
    "int_mimiciv_measurement__blood_differential": "labevents specimens, as chemistry",
    "int_mimiciv_measurement__cardiac_marker": "labevents specimens, as chemistry",
    "int_mimiciv_measurement__coagulation": "labevents specimens, as chemistry",
    "int_mimiciv_measurement__enzyme": "labevents specimens, as chemistry",
    "int_mimiciv_measurement__inflammation": "labevents specimens, as chemistry",
    "int_mimiciv_measurement__gcs": "chartevents GCS rows keyed by (stay_id, charttime) as charted",
    "int_mimiciv_measurement__height": "chartevents height rows keyed by (stay_id, charttime) as charted",
    "int_mimiciv_demographics__weight_durations": "charted weights may share a start time in real data",
    "int_mimiciv_organfailure__kdigo_uo": "joins weight durations by time: overlapping durations in real data repeat a row",
    "int_mimiciv_organfailure__kdigo_stages": "built on kdigo_uo (above)",
    "int_mimiciv_treatment__rrt": "charted dialysis rows keyed as charted",
    "int_mimiciv_treatment__invasive_line": "procedureevents lines keyed as charted",
}


def _key_tests(manifest: dict) -> dict[str, list[str]]:
    """Model name -> the severities of its uniqueness (primary-key) tests."""
    severities: dict[str, list[str]] = {}
    for node in manifest["nodes"].values():
        if not _is_key_test(node):
            continue
        for dependency in node["depends_on"]["nodes"]:
            if dependency.startswith("model.m4agent."):
                severities.setdefault(dependency.split(".")[-1], []).append(node["config"]["severity"].lower())
    return severities


def test_primary_keys_fail_the_build(manifest: dict) -> None:
    """A model with a key has a key test at severity error, unless KEYS_THAT_WARN says why not."""
    unenforced = [model for model, severities in sorted(_key_tests(manifest).items())
                  if "error" not in severities and not any(fnmatch.fnmatch(model, p) for p in KEYS_THAT_WARN)]
    assert unenforced == []


def test_every_key_exception_names_a_model_that_warns(manifest: dict) -> None:
    """No stale entry: each KEYS_THAT_WARN pattern matches a model whose key tests all warn."""
    warning = [model for model, severities in _key_tests(manifest).items() if "error" not in severities]
    stale = [p for p in KEYS_THAT_WARN if not any(fnmatch.fnmatch(model, p) for model in warning)]
    assert stale == []


def test_grading_reads_every_reference_through_ref(manifest: dict) -> None:
    truth_rows = manifest["nodes"]["model.m4agent.int_grading__truth_rows"]
    referenced = {node.split(".")[-1] for node in truth_rows["depends_on"]["nodes"]
                  if node.split(".")[-1].startswith("ref_")}
    built = {path.stem for path in (PROJECT_ROOT / "models" / "marts" / "reference").glob("ref_*.sql")}
    assert referenced == built


def test_every_task_names_a_reference_grading_reads(manifest: dict) -> None:
    from m4agent.registry import all_tasks

    truth_rows = manifest["nodes"]["model.m4agent.int_grading__truth_rows"]
    referenced = {node.split(".")[-1] for node in truth_rows["depends_on"]["nodes"]}
    assert sorted({task.reference_model for task in all_tasks().values()} - referenced) == []


def test_the_evaluators_exceptions_are_built_into_no_warehouse(manifest: dict) -> None:
    """Only this test module reads them (from the CSV): the seed is disabled."""
    assert "seed.m4agent.dbt_project_evaluator_exceptions" not in manifest["nodes"]
    assert "seed.m4agent.dbt_project_evaluator_exceptions" in manifest["disabled"]
