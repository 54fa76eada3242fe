"""The references on BigQuery: ``m4agent reference build --target bigquery`` (docs/scale.md).

The same dbt project, on the ``bigquery`` output of ``profiles.yml``: the sources are PhysioNet's
hosted MIMIC-IV and eICU (project ``physionet-data``; datasets named by the vars in
``HOSTED_DATASETS``), and what dbt builds goes to datasets of the user's project
(``M4AGENT_BQ_PROJECT``) named as on DuckDB, because agents and skills address
``mimiciv_derived.sofa`` by that name. The grading models stay on DuckDB, beside the agent
outputs. ``compile_only`` compiles without a query: no dataset listed, no introspection, so it
checks the SQL without touching (or billing) a project.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

from rich.console import Console

from m4agent.dbt.runner import FULL_TESTS_TAG, artefact_dir, invoke
from m4agent.errors import M4AgentError

TARGET = "bigquery"
# PhysioNet's dataset names for MIMIC-IV 3.1 and eICU-CRD 2.0 in its project physionet-data
HOSTED_DATASETS = {"mimiciv_hosp_schema": "mimiciv_3_1_hosp", "mimiciv_icu_schema": "mimiciv_3_1_icu",
                   "eicu_schema": "eicu_crd"}
NOT_ON_BIGQUERY = "path:models/grading"  # grading runs on DuckDB, beside the agent outputs

console = Console(stderr=True, soft_wrap=True)


def check_ready() -> None:
    """The adapter is installed and a project is named; else what to do."""
    if importlib.util.find_spec("dbt.adapters.bigquery") is None:
        raise M4AgentError("the BigQuery target needs dbt's BigQuery adapter: pip install -e '.[bigquery]' "
                           "(dbt-bigquery 1.11, matching dbt-core)")
    if not os.environ.get("M4AGENT_BQ_PROJECT"):
        raise M4AgentError("set M4AGENT_BQ_PROJECT to your Google Cloud project (where dbt writes and is billed); "
                           "docs/scale.md says what the project needs")


def dbt_args(select: str | None = None, compile_only: bool = False, full_tests: bool = False,
             unit_tests: bool = False, extra_vars: dict[str, str] | None = None) -> list[str]:
    """dbt's arguments for a build (or a compile) of the references on BigQuery."""
    excluded = [NOT_ON_BIGQUERY] + ([] if full_tests else [f"tag:{FULL_TESTS_TAG}"])
    if compile_only:  # unit tests compare rows: nothing to compile without running them
        excluded.append("resource_type:unit_test")
    args = ["compile" if compile_only else "build", "--target", TARGET,
            "--vars", json.dumps({**HOSTED_DATASETS, **(extra_vars or {})}), "--exclude", *excluded]
    if compile_only:
        args += ["--no-populate-cache", "--no-introspect"]
    elif not unit_tests:
        args += ["--exclude-resource-type", "unit_test"]
    if select:
        args += ["--select", select, "--indirect-selection", "cautious"]
    return args


def build(data_dir: Path, select: str | None = None, compile_only: bool = False, full_tests: bool = False,
          unit_tests: bool = False, extra_vars: dict[str, str] | None = None, threads: int | None = None) -> Path:
    """Build (or compile) the references on BigQuery; dbt's artefacts go to ``DIR/dbt/bigquery``,
    whose path is returned (``compiled/`` holds each model's SQL as BigQuery runs it)."""
    check_ready()
    args = dbt_args(select, compile_only, full_tests, unit_tests, extra_vars)
    project = os.environ["M4AGENT_BQ_PROJECT"]
    console.print(f"[bold]dbt {args[0]}[/] on BigQuery: sources in physionet-data, references to project "
                  f"{project} (artefacts in {artefact_dir(data_dir) / TARGET})")
    invoke(data_dir, args, target=TARGET, progress=f"dbt {args[0]}", threads=threads)
    return artefact_dir(data_dir) / TARGET
