"""The dbt project on a BigQuery target, checked offline (issue 29).

Without a BigQuery project, three things can still be checked:

1. ``dbt compile --target bigquery`` succeeds without a connection. dbt opens a client for
   the run even when it only compiles, so the profile's ``oauth-secrets`` method is given
   a placeholder token (a client is made, no request is sent), and ``--no-populate-cache
   --no-introspect`` keep dbt from listing datasets or running introspective queries.
2. Every compiled model parses as BigQuery SQL (sqlglot's BigQuery dialect) and holds none of
   the DuckDB-only spellings listed in ``DUCKDB_ONLY`` (those live in ``macros/cross_db/``,
   dispatched per engine).
3. Translated back to DuckDB by sqlglot and run in dependency order on the synthetic data
   (sources and seeds as the native build has them), every reference gives the same rows as
   the native DuckDB build. sqlglot keeps BigQuery's semantics where the engines differ
   (GREATEST and LEAST are NULL when an argument is NULL in BigQuery), so a model relying on
   DuckDB's behaviour shows up as a difference.

The grading models (``models/grading``) are DuckDB-only by design (grading runs beside the
agent outputs) and are not compiled. What only a real project can show (types of the hosted
tables, contracts, QUALIFY, bytes billed) is listed in docs/scale.md.
"""

from __future__ import annotations

import graphlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
import sqlglot  # dev extras, with dbt-bigquery: a missing one is a broken install, not a skip

from m4agent.data.synth import synthesize
from m4agent.dbt.runner import invoke
from m4agent.paths import PROJECT_ROOT, database_path
from m4agent.registry import all_tasks

pytestmark = pytest.mark.slow

REFERENCES = sorted({task.reference_model for task in all_tasks().values()})
PROJECT = "bqsim"  # the BigQuery project named in the compiled SQL; a DuckDB catalog here
PATIENTS = 60

# DuckDB spellings BigQuery refuses; models reach them only through macros/cross_db/.
DUCKDB_ONLY = {
    "a :: cast": r"::",
    "TRY_CAST": r"\bTRY_CAST\s*\(",
    "ILIKE": r"\bILIKE\b",
    "GENERATE_SERIES": r"\bGENERATE_SERIES\s*\(",
    "MAKE_TIMESTAMP": r"\bMAKE_TIMESTAMP\s*\(",
    "DATE_TRUNC with a quoted part": r"\bDATE_TRUNC\s*\(\s*'",
    "SELECT * EXCLUDE": r"\bEXCLUDE\s*\(",
    "an aggregate FILTER clause": r"\bFILTER\s*\(\s*WHERE\b",
    "type VARCHAR": r"\bVARCHAR\b",
    "type DOUBLE": r"\bDOUBLE\b",
    "a zoned TIMESTAMP cast (MIMIC-IV's times are DATETIME on BigQuery)": r"\bAS\s+TIMESTAMP\s*\)",
}


def _code_only(sql: str) -> str:
    """The SQL without its comments and with every string literal emptied ('ilike' is data)."""
    return re.sub(r"'(?:[^']|'')*'", "''", re.sub(r"--[^\n]*", "", sql))


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Synthetic MIMIC-IV and eICU (edge cases included) with every model and seed built by dbt on DuckDB."""
    root = tmp_path_factory.mktemp("bq_native")
    for dataset in ("mimic-iv", "eicu"):
        synthesize(dataset, root, patients=PATIENTS, seed=42, edge_cases=True)
    invoke(root, ["build", "--exclude", "resource_type:test", "resource_type:unit_test", "path:models/grading"])
    return root


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """dbt's manifest of ``dbt compile --target bigquery``, run with no Google credentials at all."""
    work = tmp_path_factory.mktemp("bq_compile")
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GOOGLE_", "CLOUDSDK_", "M4AGENT_BQ_"))}
    env.update(M4AGENT_BQ_METHOD="oauth-secrets", M4AGENT_BQ_TOKEN="offline-compile",
               M4AGENT_BQ_PROJECT=PROJECT, DBT_TARGET_PATH=str(work / "target"),
               DBT_LOG_PATH=str(work / "logs"), DBT_SEND_ANONYMOUS_USAGE_STATS="false",
               HOME=str(work))  # no gcloud configuration of the user's either
    command = [sys.executable, "-c", "from dbt.cli.main import cli; cli()", "compile",
               "--target", "bigquery", "--no-populate-cache", "--no-introspect",
               "--select", "resource_type:model", "--exclude", "path:models/grading",
               "--vars", json.dumps({"mimiciv_source_project": PROJECT, "eicu_source_project": PROJECT}),
               "--project-dir", str(PROJECT_ROOT), "--profiles-dir", str(PROJECT_ROOT)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"dbt compile --target bigquery failed:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"
    return json.loads((work / "target" / "manifest.json").read_text())


def _models(manifest: dict) -> dict[str, dict]:
    return {uid: node for uid, node in manifest["nodes"].items()
            if node["resource_type"] == "model" and node.get("compiled_code")}


@dataclass
class Translated:
    """The compiled BigQuery models, translated to DuckDB and built in one connection."""
    con: duckdb.DuckDBPyConnection
    errors: dict[str, str]  # model name -> why it could not be translated or run


@pytest.fixture(scope="module")
def translated(native: Path, manifest: dict) -> Translated:
    con = duckdb.connect()
    con.execute(f"ATTACH '{database_path(native, 'mimic-iv')}' AS native_mimic (READ_ONLY)")
    con.execute(f"ATTACH '{database_path(native, 'eicu')}' AS native_eicu (READ_ONLY)")
    con.execute(f"ATTACH ':memory:' AS {PROJECT}")
    schemas: set[str] = set()

    def schema(name: str) -> str:
        if name not in schemas:
            con.execute(f'CREATE SCHEMA {PROJECT}."{name}"')
            schemas.add(name)
        return f'{PROJECT}."{name}"'

    # Sources and seeds as the native build has them: the hosted tables and the value sets.
    for source in manifest["sources"].values():
        if source["source_name"] == "agent_outputs":
            continue
        origin = "native_eicu" if source["source_name"] == "eicu_crd" else "native_mimic"
        con.execute(f'CREATE VIEW {schema(source["schema"])}."{source["identifier"]}" AS '
                    f'SELECT * FROM {origin}."{source["schema"]}"."{source["identifier"]}"')
    for seed in (n for n in manifest["nodes"].values() if n["resource_type"] == "seed"):
        origin = "native_eicu" if seed["original_file_path"].startswith("seeds/eicu/") else "native_mimic"
        con.execute(f'CREATE TABLE {schema(seed["schema"])}."{seed["alias"]}" AS '
                    f'SELECT * FROM {origin}."{seed["schema"]}"."{seed["alias"]}"')

    models = _models(manifest)
    graph = {uid: [d for d in node["depends_on"]["nodes"] if d in models] for uid, node in models.items()}
    errors: dict[str, str] = {}
    for uid in graphlib.TopologicalSorter(graph).static_order():
        node = models[uid]
        failed_parents = [models[d]["name"] for d in graph[uid] if models[d]["name"] in errors]
        if failed_parents:
            errors[node["name"]] = f"upstream model(s) failed: {', '.join(failed_parents)}"
            continue
        try:
            sql = sqlglot.transpile(node["compiled_code"], read="bigquery", write="duckdb")[0]
            con.execute(f'CREATE TABLE {schema(node["schema"])}."{node["alias"]}" AS {sql}')
        except (sqlglot.errors.SqlglotError, duckdb.Error) as error:
            errors[node["name"]] = str(error)[:2000]
    return Translated(con, errors)


def test_bigquery_compile_covers_every_reference(manifest: dict) -> None:
    compiled = {node["name"] for node in _models(manifest).values()}
    assert set(REFERENCES) <= compiled, f"not compiled for BigQuery: {sorted(set(REFERENCES) - compiled)}"


def test_bigquery_sources_read_the_named_project(manifest: dict) -> None:
    # the hosted datasets are addressed through vars, never DuckDB's attached `eicu` database
    databases = {source["database"] for source in manifest["sources"].values()
                 if source["source_name"] != "agent_outputs"}
    assert databases == {PROJECT}


def test_compiled_models_write_to_the_target_project(manifest: dict) -> None:
    databases = {node["database"] for node in manifest["nodes"].values()
                 if node["resource_type"] in ("model", "seed") and node.get("compiled_code", True)}
    assert databases == {PROJECT}


def test_compiled_models_parse_as_bigquery_sql(manifest: dict) -> None:
    failures = {}
    for node in _models(manifest).values():
        try:
            sqlglot.parse_one(node["compiled_code"], read="bigquery")
        except sqlglot.errors.ParseError as error:
            failures[node["name"]] = str(error)[:500]
    assert not failures, f"compiled SQL that BigQuery's grammar rejects: {failures}"


def test_compiled_models_hold_no_duckdb_only_syntax(manifest: dict) -> None:
    found = {}
    for node in _models(manifest).values():
        sql = _code_only(node["compiled_code"])
        hits = [what for what, pattern in DUCKDB_ONLY.items() if re.search(pattern, sql, re.IGNORECASE)]
        if hits:
            found[node["name"]] = hits
    assert not found, f"DuckDB-only syntax in BigQuery SQL (use a macro in macros/cross_db/): {found}"


def _rows(con: duckdb.DuckDBPyConnection, relation: str, columns: list[tuple[str, str]]) -> list[tuple]:
    """The relation's rows as text, sorted; doubles rounded to 9 decimals (a translated expression may
    order its float operations differently), times without a zone."""
    def text(name: str, kind: str) -> str:
        if kind in ("DOUBLE", "FLOAT") or kind.startswith("DECIMAL"):
            return f'CAST(ROUND(CAST("{name}" AS DOUBLE), 9) AS VARCHAR)'
        return f'CAST("{name}" AS VARCHAR)'
    select = ", ".join(text(name, kind) for name, kind in columns)
    return sorted(con.execute(f"SELECT {select} FROM {relation}").fetchall(), key=repr)


@pytest.mark.parametrize("reference", REFERENCES)
def test_reference_translated_from_bigquery_matches_the_duckdb_build(
        translated: Translated, manifest: dict, reference: str) -> None:
    assert reference not in translated.errors, (
        f"{reference} did not run once translated to DuckDB: {translated.errors[reference]}")
    node = next(n for n in _models(manifest).values() if n["name"] == reference)
    native_catalog = "native_eicu" if node["original_file_path"].startswith("models/marts/reference/ref_eicu") \
        else "native_mimic"
    native = f'{native_catalog}.reference."{node["alias"]}"'
    ours = f'{PROJECT}.reference."{node["alias"]}"'
    con = translated.con
    native_columns = [(r[0], r[1]) for r in con.execute(f"DESCRIBE {native}").fetchall()]
    translated_names = [r[0] for r in con.execute(f"DESCRIBE {ours}").fetchall()]
    assert translated_names == [name for name, _ in native_columns]
    expected = _rows(con, native, native_columns)
    got = _rows(con, ours, native_columns)
    assert expected, f"{reference} is empty in the native build: the comparison would prove nothing"
    missing = [row for row in expected if row not in set(got)][:3]
    extra = [row for row in got if row not in set(expected)][:3]
    assert got == expected, (f"{reference}: {len(got)} rows translated against {len(expected)} native; "
                             f"native only {missing}; translated only {extra}")


def _offline_environment(home: Path, project: str | None = PROJECT) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GOOGLE_", "CLOUDSDK_", "M4AGENT_BQ_"))}
    env.update(M4AGENT_BQ_METHOD="oauth-secrets", M4AGENT_BQ_TOKEN="offline-compile", HOME=str(home),
               DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    if project:
        env["M4AGENT_BQ_PROJECT"] = project
    return env


def test_reference_build_target_bigquery_compiles_from_physionets_hosted_datasets(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    done = subprocess.run([sys.executable, "-m", "m4agent.cli", "reference", "build", "--target", "bigquery",
                           "--compile-only", "--data-dir", str(data_dir)], env=_offline_environment(tmp_path),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    compiled = data_dir / "dbt" / "bigquery" / "compiled" / "m4agent" / "models"
    icustays = (compiled / "staging" / "mimiciv_icu" / "stg_mimiciv_icu__icustays.sql").read_text()
    assert "`physionet-data`.`mimiciv_3_1_icu`.`icustays`" in icustays
    assert f"`{PROJECT}`.`staging`.`stg_mimiciv_icu__icustays`" in (compiled / "marts" / "reference" /
                                                                     "ref_sofa_24h.sql").read_text()
    assert not (compiled / "grading").exists()  # grading stays on DuckDB


def test_reference_build_target_bigquery_without_a_project_says_which_variable(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "m4agent.cli", "reference", "build", "--target", "bigquery",
                           "--compile-only", "--data-dir", str(tmp_path / "data")],
                          env=_offline_environment(tmp_path, project=None), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1 and "set M4AGENT_BQ_PROJECT" in done.stderr, done.stderr[-2000:]
    assert not (tmp_path / "data").exists()
