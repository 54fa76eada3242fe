"""Each custom generic dbt test fails on bad data and passes on good data.

A throwaway dbt project holds copies of the project's generic tests
(``macros/tests/*.sql``, with the strict checks they apply) and, for each test, a
model of good rows and a model of bad rows (literal SELECTs, no source needed);
one ``dbt build`` on a scratch DuckDB file runs every test on both. A generic test
that cannot fail (a rule lost in an edit, a NULL that silently passes) shows here as
a bad model that passes.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from m4agent.paths import PROJECT_ROOT

# model name -> its SQL; "good_*" must pass its test, "bad_*" fail with the given number of rows
MODELS = {
    "good_range": "SELECT 0 AS score UNION ALL SELECT 24 UNION ALL SELECT NULL",
    "bad_range": "SELECT -1 AS score UNION ALL SELECT 25 UNION ALL SELECT 10",
    "good_strict_range": "SELECT 1 AS score",
    "bad_strict_range": "SELECT 0 AS score UNION ALL SELECT 24",
    "good_key": "SELECT 1 AS stay_id, 1 AS hr UNION ALL SELECT 1, 2 UNION ALL SELECT 2, 1",
    "bad_key": "SELECT 1 AS stay_id, 1 AS hr UNION ALL SELECT 1, 1 UNION ALL SELECT NULL, 2 UNION ALL SELECT NULL, 2",
    "good_runs": """
        SELECT 'r1' AS run_id, 'fx' AS task, TRUE AS file_exists, NULL::VARCHAR AS read_error, 3 AS agent_rows,
               []::VARCHAR[] AS missing_required_columns, 1.0 AS row_coverage, 0.95 AS row_coverage_threshold,
               NULL::VARCHAR AS comparison_error, FALSE AS comparison_failed, 0.9 AS match_rate,
               0.9 AS accuracy_threshold, 'meld' AS column_name""",
    "bad_runs": """
        SELECT * FROM (VALUES
            ('r1', 'fx', FALSE, NULL, 0, []::VARCHAR[], 0.0, 0.95, NULL, FALSE, 1.0, 0.9, 'meld'),
            ('r2', 'fx', TRUE, 'CSV parse error', 0, []::VARCHAR[], 0.0, 0.95, NULL, TRUE, 0.0, 0.9, 'meld'),
            ('r3', 'fx', TRUE, NULL, 0, ['meld'], 0.94, 0.95, NULL, FALSE, 0.89, 0.9, 'meld'),
            ('r4', 'fx', TRUE, NULL, 5, []::VARCHAR[], 1.0, 0.95, 'cannot be merged', TRUE, 1.0, 0.9, 'meld')
        ) AS t(run_id, task, file_exists, read_error, agent_rows, missing_required_columns, row_coverage,
               row_coverage_threshold, comparison_error, comparison_failed, match_rate, accuracy_threshold,
               column_name)""",
}

TESTS_YAML = """
version: 2
models:
{models}
"""

# (model, YAML of its data_tests) per generic test
APPLIED = {
    "accepted_range": ("range", "- accepted_range: {arguments: {column_name: score, min_value: 0, max_value: 24}}"),
    "accepted_range_strict": ("strict_range", "- accepted_range: {arguments: {column_name: score, min_value: 0, "
                                              "max_value: 24, inclusive: false}}"),
    "unique_combination_of_columns": ("key", "- unique_combination_of_columns: {arguments: "
                                             "{combination_of_columns: [stay_id, hr]}}"),
    "m4_output_present": ("runs", "- m4_output_present"),
    "m4_required_columns": ("runs", "- m4_required_columns"),
    "m4_row_coverage": ("runs", "- m4_row_coverage"),
    "m4_column_accuracy": ("runs", "- m4_column_accuracy"),
}

# generic test -> failing rows on its bad model, worked out from the rows above
EXPECTED_FAILURES = {
    "accepted_range": 2,  # -1 and 25
    "accepted_range_strict": 2,  # 0 and 24 when the bounds are strict
    "unique_combination_of_columns": 2,  # (1, 1) twice; (NULL, 2) twice (NULLs compare equal)
    "m4_output_present": 3,  # r1 no file, r2 unreadable, r3 no rows
    "m4_required_columns": 1,  # r3 lacks meld (r2's read error is reported by m4_output_present)
    "m4_row_coverage": 2,  # r3 below 0.95, r4 comparison error (r1, r2 unread)
    "m4_column_accuracy": 3,  # r2 and r4 comparison failed, r3 below 0.9
}


def _project(root: Path) -> Path:
    project = root / "project"
    for folder in ("macros", "models"):
        (project / folder).mkdir(parents=True)
    for source in [*(PROJECT_ROOT / "macros" / "tests").glob("*.sql"),
                   PROJECT_ROOT / "macros" / "grading" / "strict_checks.sql"]:  # the m4_* tests' conditions
        shutil.copyfile(source, project / "macros" / source.name)
    for name, sql in MODELS.items():
        (project / "models" / f"{name}.sql").write_text(textwrap.dedent(sql).strip() + "\n")
    tests_of: dict[str, list[str]] = {}  # model -> the data_tests applied to it
    for suffix, data_test in APPLIED.values():
        for quality in ("good", "bad"):
            tests_of.setdefault(f"{quality}_{suffix}", []).append(data_test)
    yaml_models = "\n".join(f"  - name: {model}\n    data_tests:\n" + "\n".join(f"      {t}" for t in tests)
                            for model, tests in tests_of.items())
    (project / "models" / "schema.yml").write_text(TESTS_YAML.format(models=yaml_models))
    (project / "dbt_project.yml").write_text(textwrap.dedent("""
        name: generic_tests_probe
        version: "1.0"
        profile: probe
        macro-paths: ["macros"]
        models:
          generic_tests_probe:
            +materialized: table
    """))
    (project / "profiles.yml").write_text(textwrap.dedent(f"""
        probe:
          target: duckdb
          outputs:
            duckdb:
              type: duckdb
              path: "{root / 'probe.duckdb'}"
              threads: 1
    """))
    return project


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[str, int]]:
    """(generic test, model) -> (dbt status, failing rows) of one dbt build of the probe project."""
    from dbt.cli.main import dbtRunner

    root = tmp_path_factory.mktemp("generic_tests")
    project = _project(root)
    result = dbtRunner().invoke(["build", "--project-dir", str(project), "--profiles-dir", str(project),
                                 "--target-path", str(root / "target"), "--log-path", str(root / "logs"),
                                 "--log-level", "none"])
    assert result.result is not None, result.exception
    found = {}
    for node_result in result.result.results:
        node = node_result.node
        if node.resource_type != "test":
            continue
        model = node.attached_node.split(".")[-1]
        found[(node.test_metadata.name, model)] = (str(node_result.status), node_result.failures or 0)
    return found


def _key(test_name: str, quality: str) -> tuple[str, str]:
    suffix = APPLIED[test_name][0]
    return (test_name.removesuffix("_strict"), f"{quality}_{suffix}")


@pytest.mark.parametrize("test_name", sorted(APPLIED))
def test_generic_test_fails_on_bad_rows(outcomes: dict, test_name: str) -> None:
    assert outcomes[_key(test_name, "bad")] == ("fail", EXPECTED_FAILURES[test_name])


@pytest.mark.parametrize("test_name", sorted(APPLIED))
def test_generic_test_passes_on_good_rows(outcomes: dict, test_name: str) -> None:
    assert outcomes[_key(test_name, "good")] == ("pass", 0)
