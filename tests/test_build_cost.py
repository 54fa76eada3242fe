"""What a default `m4agent reference build` costs besides the SQL itself (issue 28).

- the column_rules generic test (macros/tests/test_column_rules.sql) counts the rows breaking
  each rule of each column in one query, and fails with one row per broken rule;
- the default build runs the references' data tests only: every staging, intermediate and
  value-set test carries the tag ``full`` (``--full-tests``), unit tests run on request;
- dbt's saved parse is kept per project version and reused by a new data directory, so its
  first build does not parse the project from scratch;
- a command running nodes parses first and runs on the parsed project, which Python's collector
  leaves alone meanwhile (frozen) and not afterwards (unfrozen); it writes ``run_results.json``,
  and a new data directory gets the project version's ``manifest.json`` from the parse cache.

The column_rules test runs in a throwaway dbt project on a scratch DuckDB file; the node
counts are read from the project's parsed manifest; the parse cache is checked with two real
dbt runs (loading one seed) on two data directories.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import textwrap
from pathlib import Path
from typing import NamedTuple

import pytest

from m4agent.data.synth import synthesize
from m4agent.dbt import parse_cache
from m4agent.dbt.runner import FULL_TESTS_TAG, artefact_dir, build_args, invoke
from m4agent.paths import PROJECT_ROOT

RULES = """
      - column_rules:
          arguments:
            key: [stay_id]
            cohort: ref('cohort')
            columns:
              stay_id: [not_null]
              score: [not_null, {accepted_range: {min_value: 0, max_value: 4}}]
              status: [{accepted_values: {values: [open, "it's off"]}}]
              flag: [{accepted_values: {values: [0, 1]}}]
              rate: [{accepted_range: {min_value: 0, inclusive: false}}]
              total: [{equals_sum: [a, b]}]
"""
COHORT = "SELECT 1 AS stay_id UNION ALL SELECT 2 UNION ALL SELECT 3"
GOOD = ("SELECT 1 AS stay_id, 0 AS score, 'open' AS status, 1 AS flag, 0.5 AS rate, 3 AS total, 1 AS a, 2 AS b "
        "UNION ALL SELECT 2, 4, 'it''s off', 0, NULL, 1, 1, NULL UNION ALL SELECT 3, 2, NULL, NULL, 7, NULL, 5, 5")
BAD = ("SELECT NULL AS stay_id, 5 AS score, 'maybe' AS status, 2 AS flag, 0 AS rate, 4 AS total, 1 AS a, 2 AS b "
       "UNION ALL SELECT NULL, NULL, 'open', 1, -1, 5, 1, NULL UNION ALL SELECT 3, -1, 'open', 0, 1, 2, NULL, NULL")


@pytest.fixture(scope="module")
def rule_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """model name -> its column_rules test's result (status, failures, the broken rules' rows)."""
    from dbt.cli.main import dbtRunner

    project = tmp_path_factory.mktemp("column_rules")
    (project / "macros").mkdir()
    shutil.copy(PROJECT_ROOT / "macros" / "tests" / "test_column_rules.sql", project / "macros")
    (project / "models").mkdir()
    (project / "models" / "cohort.sql").write_text(COHORT)
    schema = ["version: 2", "models:"]
    for name, sql in (("good", GOOD), ("bad", BAD)):
        (project / "models" / f"{name}.sql").write_text(sql)
        schema += [f"  - name: {name}", "    data_tests:", RULES.strip("\n")]
    (project / "models" / "schema.yml").write_text("\n".join(schema) + "\n")
    (project / "dbt_project.yml").write_text(textwrap.dedent("""\
        name: rules
        version: "1.0.0"
        config-version: 2
        profile: rules
        models: {rules: {+materialized: table}}
        data_tests: {rules: {+store_failures: true}}
    """))
    (project / "profiles.yml").write_text(textwrap.dedent(f"""\
        rules:
          target: dev
          outputs:
            dev: {{type: duckdb, path: "{project / 'rules.duckdb'}", threads: 1}}
    """))
    dbtRunner().invoke(["build", "--project-dir", str(project), "--profiles-dir", str(project), "--quiet"])
    from m4agent.dbt.duckdb_session import release_dbt_handle

    release_dbt_handle()
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    import duckdb

    out: dict[str, dict] = {}
    con = duckdb.connect(str(project / "rules.duckdb"), read_only=True)
    try:
        for result in results:
            if not result["unique_id"].startswith("test."):
                continue
            model = "bad" if "_bad_" in result["unique_id"] else "good"
            rows = con.execute(f"SELECT column_name, rule, failing_rows FROM {result['relation_name']} "
                               "ORDER BY ALL").fetchall()
            out[model] = {**result, "rows": rows}
    finally:
        con.close()
    return out


def test_column_rules_pass_when_every_rule_holds(rule_results: dict[str, dict]) -> None:
    assert rule_results["good"]["status"] == "pass", rule_results["good"]["rows"]


def test_column_rules_name_each_broken_rule_with_its_row_count(rule_results: dict[str, dict]) -> None:
    assert rule_results["bad"]["rows"] == [
        ("flag", "accepted_values 0, 1", 1),
        ("rate", "accepted_range (0, )", 2),
        ("score", "accepted_range [0, 4]", 2),
        ("score", "not_null", 1),
        ("status", "accepted_values 'open', 'it''s off'", 1),
        ("stay_id", "cohort cohort", 2),  # stays 1 and 2 of the cohort have no row
        ("stay_id", "key", 2),  # the two NULL stay_ids (NULLs compare equal, as in GROUP BY)
        ("stay_id", "not_null", 2),
        ("total", "equals_sum a + b", 3),  # 4 <> 1 + 2; 5 <> 1 + missing; 2 <> missing + missing
    ]


def test_column_rules_failures_count_rows_not_rules(rule_results: dict[str, dict]) -> None:
    assert rule_results["bad"]["status"] == "fail"
    assert rule_results["bad"]["failures"] == 16


# ---- what the default build selects ---------------------------------------------------------------


def test_default_build_leaves_out_full_tests_and_unit_tests() -> None:
    args = build_args(["mimic-iv", "eicu"])
    assert args == ["build", "--exclude", f"tag:{FULL_TESTS_TAG}", "--exclude-resource-type", "unit_test"]


def test_full_and_unit_tests_on_request_keep_absent_datasets_out() -> None:
    args = build_args(["mimic-iv"], full_tests=True, unit_tests=True)
    assert args == ["build", "--exclude", "source:eicu_crd+"]


class Parsed(NamedTuple):
    first: Path  # the first data directory's artefacts (DIR/dbt)
    second: Path  # the second's
    manifest: dict  # the second's manifest.json


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> Parsed:
    """Two small data directories, each running one dbt command that loads a seed, one after the
    other with a fresh parse cache."""
    cache = tmp_path_factory.mktemp("parse_cache")
    project = tmp_path_factory.mktemp("project")  # a snapshot: the checkout may change between the runs
    for part in parse_cache.PROJECT_PARTS:
        source = PROJECT_ROOT / part
        if source.is_dir():
            shutil.copytree(source, project / part)
        elif source.is_file():
            shutil.copy(source, project / part)
    dirs = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("M4AGENT_CACHE_DIR", str(cache))
        for name in ("first", "second"):
            data_dir = tmp_path_factory.mktemp(name)
            synthesize("mimic-iv", data_dir, patients=1, seed=1)
            invoke(data_dir, ["seed", "--select", "mimiciv_vitalsign_items"], project_dir=project)
            dirs.append(artefact_dir(data_dir))
    manifest = json.loads((dirs[1] / "target" / "manifest.json").read_text())
    return Parsed(dirs[0], dirs[1], manifest)


def test_a_new_data_directory_reuses_the_saved_parse(parsed: Parsed) -> None:
    first, second = parsed.first, parsed.second
    assert "Unable to do partial parsing" in (first / "logs" / "dbt.log").read_text()  # a cold cache
    log = (second / "logs" / "dbt.log").read_text()
    assert "Unable to do partial parsing" not in log, "the second data directory parsed from scratch"


def test_every_staging_intermediate_and_seed_test_is_a_full_test(parsed: Parsed) -> None:
    untagged = [node["unique_id"] for node in parsed.manifest["nodes"].values()
                if node["resource_type"] == "test" and FULL_TESTS_TAG not in node["tags"]
                and not node["original_file_path"].startswith(("models/marts/", "models/grading/"))]
    assert not untagged


def test_each_reference_has_one_data_test_per_severity_by_default(parsed: Parsed) -> None:
    """One column_rules test holds a reference's key, cohort, totals and column rules, and a second
    one the rules that only warn: not one test per rule."""
    per_model: dict[str, int] = {}
    for node in parsed.manifest["nodes"].values():
        if node["resource_type"] == "test" and FULL_TESTS_TAG not in node["tags"]:
            for parent in node["depends_on"]["nodes"]:
                if parent.startswith("model.m4agent.ref_"):
                    per_model[parent] = per_model.get(parent, 0) + 1
    assert len(per_model) == 17
    assert max(per_model.values()) <= 2, per_model


def test_the_parse_cache_key_changes_with_a_project_file(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "dbt_project.yml").write_text("name: x\n")
    (tmp_path / "models" / "a.sql").write_text("SELECT 1")
    before = parse_cache.project_key(tmp_path, "target")
    assert parse_cache.project_key(tmp_path, "target") == before
    assert parse_cache.project_key(tmp_path, "grading") != before
    (tmp_path / "models" / "a.sql").write_text("SELECT 2")
    assert parse_cache.project_key(tmp_path, "target") != before


def test_a_dbt_command_leaves_pythons_collector_unfrozen(parsed: Parsed) -> None:
    """Frozen objects are never collected: a long-lived process (a campaign grading run after
    run) would keep every parsed project it ever made."""
    assert gc.get_freeze_count() == 0


def test_a_dbt_command_writes_its_run_results(parsed: Parsed) -> None:
    for artefacts in (parsed.first, parsed.second):
        results = json.loads((artefacts / "target" / "run_results.json").read_text())["results"]
        assert [(r["unique_id"], r["status"]) for r in results] == [("seed.m4agent.mimiciv_vitalsign_items", "success")]


def test_a_new_data_directory_gets_the_saved_manifest_instead_of_writing_one(parsed: Parsed) -> None:
    first, manifest = parsed.first, parsed.manifest
    written = json.loads((first / "target" / "manifest.json").read_text())
    assert manifest["metadata"]["invocation_id"] == written["metadata"]["invocation_id"]  # a copy, not a rewrite
    assert manifest["nodes"]["model.m4agent.ref_sofa_24h"]["relation_name"].endswith('"reference"."ref_sofa_24h"')


def test_a_manifest_rewritten_after_its_stamp_is_not_current(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{}")
    parse_cache.stamp_manifest("k1", tmp_path)
    assert parse_cache.manifest_is_current("k1", tmp_path)
    assert not parse_cache.manifest_is_current("k2", tmp_path)
    stamped = (tmp_path / "manifest.json").stat().st_mtime_ns
    os.utime(tmp_path / "manifest.json", ns=(stamped + 10**9, stamped + 10**9))  # dbt run by hand wrote it again
    assert not parse_cache.manifest_is_current("k1", tmp_path)


def test_the_parse_cache_key_changes_with_the_vars(tmp_path: Path) -> None:
    (tmp_path / "dbt_project.yml").write_text("name: x\n")
    plain = parse_cache.project_key(tmp_path, "target")
    assert parse_cache.project_key(tmp_path, "target", ["--vars", '{"m4_grading": true}']) != plain
