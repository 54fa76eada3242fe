"""The big event tables are read once per build (issue 28), checked on the dbt manifest.

chartevents (433 M rows in MIMIC-IV 3.1), labevents, inputevents, outputevents and
procedureevents are each read by exactly one model, a narrow ``int_mimiciv_events__*_used``
table holding the items the value sets name; every concept reads those. A concept that
reads the staging view again adds a full pass over the source; an item id a concept names
that is in no value set is silently missing from the narrow table. Both are checked here,
without data: the scans themselves are counted in DuckDB's profile by
``benchmarks/profile_event_scans.py``.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from m4agent.dbt.runner import artefact_dir, invoke
from m4agent.paths import PROJECT_ROOT

# staging view of each big event table -> the one model allowed to read it
NARROW_MODELS = {
    "stg_mimiciv_icu__chartevents": "int_mimiciv_events__chartevents_used",
    "stg_mimiciv_hosp__labevents": "int_mimiciv_events__labevents_used",
    "stg_mimiciv_icu__inputevents": "int_mimiciv_events__inputevents_used",
    "stg_mimiciv_icu__outputevents": "int_mimiciv_events__outputevents_used",
    "stg_mimiciv_icu__procedureevents": "int_mimiciv_events__procedureevents_used",
}

SEEDS = PROJECT_ROOT / "seeds" / "mimiciv"


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data_dir = tmp_path_factory.mktemp("parse")
    invoke(data_dir, ["parse"])
    return json.loads((artefact_dir(data_dir) / "target" / "manifest.json").read_text())


def _models_reading(manifest: dict, model: str) -> list[str]:
    """Names of the models whose SQL refs ``model`` (macros' refs included)."""
    return sorted(
        node["name"] for node in manifest["nodes"].values()
        if node["resource_type"] == "model"
        and any(parent.split(".")[-1] == model for parent in node["depends_on"]["nodes"])
    )


@pytest.mark.parametrize("staging_view", sorted(NARROW_MODELS))
def test_big_event_table_is_read_by_its_narrow_model_only(manifest: dict, staging_view: str) -> None:
    assert _models_reading(manifest, staging_view) == [NARROW_MODELS[staging_view]]


def test_narrow_event_models_stay_out_of_mimiciv_derived(manifest: dict) -> None:
    """Agents' workspaces copy schema mimiciv_derived: the narrow tables must not land there."""
    schemas = {node["name"]: node["schema"] for node in manifest["nodes"].values()
               if node["resource_type"] == "model" and node["name"] in NARROW_MODELS.values()}
    assert set(schemas) == set(NARROW_MODELS.values())
    assert set(schemas.values()) == {"mimiciv_events"}


def _seed_items(*names: str, source_table: str | None = None) -> set[int]:
    items: set[int] = set()
    for name in names:
        path = next(SEEDS.rglob(f"{name}.csv"))
        with path.open() as f:
            items |= {int(row["itemid"]) for row in csv.DictReader(f)
                      if source_table is None or row.get("source_table") == source_table}
    return items


def _literal_items(manifest: dict, narrow_model: str, pattern: str) -> dict[str, set[int]]:
    """Item ids written as numbers in the SQL of the models reading ``narrow_model``."""
    found: dict[str, set[int]] = {}
    for node in manifest["nodes"].values():
        if node["resource_type"] != "model" or node["name"] not in _models_reading(manifest, narrow_model):
            continue
        sql = Path(PROJECT_ROOT, node["original_file_path"]).read_text()
        found[node["name"]] = {int(number) for number in re.findall(pattern, sql)}
    return found


def test_every_chart_item_a_concept_names_is_kept(manifest: dict) -> None:
    kept = _seed_items("mimiciv_vitalsign_items", "mimiciv_ventilator_setting_items", "crrt_chart_items",
                       "mimiciv_chart_items") | _seed_items("rrt_items", source_table="chartevents")
    named = _literal_items(manifest, "int_mimiciv_events__chartevents_used", r"\b22\d{4}\b")
    assert named, "no concept names a chart item id: the pattern no longer finds them"
    missing = {model: sorted(items - kept) for model, items in named.items() if items - kept}
    assert missing == {}


def test_every_lab_item_a_concept_names_is_kept(manifest: dict) -> None:
    kept = _seed_items("mimiciv_lab_items")
    named = _literal_items(manifest, "int_mimiciv_events__labevents_used", r"\b5\d{4}\b")
    missing = {model: sorted(items - kept) for model, items in named.items() if items - kept}
    assert missing == {}
