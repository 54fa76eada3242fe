"""A report: every estimate of a set of runs (``build``) and the folder that shows them (``write``).

Every estimate is over valid runs only: a run whose final outcome is the model's own. A quota stop,
an infrastructure failure, an interruption or a run never made says nothing about the model, so no
view counts it as the model's zero (an operator's Ctrl-C would otherwise move a skill effect); the
validity section counts and lists those runs instead, beside the estimates they are left out of.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError
from m4agent.reports import estimands, run_records, validity
from m4agent.reports.estimands import Parameters

REPORT_JSON = "report.json"


def _clean(value: Any) -> Any:
    """JSON has no NaN: missing estimates are null."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _view(observations: list[run_records.Observation], loaded: run_records.Loaded, params: Parameters,
          planned: list[tuple[str, estimands.Arm, estimands.Arm]] | None = None) -> dict[str, Any]:
    table = estimands.cells(observations)
    families = {run.task: run.family for run in loaded.runs}
    modes = {run.task: run.mode for run in loaded.runs}
    comparisons = []
    for agent, baseline, treatment in planned if planned is not None else estimands.planned_comparisons(table):
        found = estimands.compare(table, agent, baseline, treatment, params, families, modes)
        if found is not None:
            comparisons.append(found)
    control_rows = estimands.controls(table)
    return {"cells": [cell.as_row() for cell in table.values()], "comparisons": comparisons,
            "controls": estimands.control_summary(control_rows), "control_rows": control_rows,
            "conditions": estimands.condition_summary(table)}


def build(paths: Sequence[Path], params: Parameters | None = None, tasks_dir: Path | None = None) -> dict[str, Any]:
    """Load the runs of ``paths`` and make every estimate; the report as a JSON-ready dict."""
    params = params or Parameters()
    loaded = run_records.load(paths, tasks_dir)
    valid_obs = run_records.valid_observations(loaded.runs)
    if not valid_obs and not loaded.runs:
        raise M4AgentError("no run to report on; run the campaign first (`m4agent campaign run --dir DIR`)")
    valid = _view(valid_obs, loaded, params)
    report = {
        "sources": loaded.sources,
        "parameters": asdict(params),
        "validity": {"completeness": validity.completeness(loaded), "outcomes": validity.outcomes(loaded.runs),
                     "integrity": validity.integrity(loaded.runs),
                     "views": {"valid": "one observation per run with a valid final outcome (quota stops, "
                                        "infrastructure failures, interruptions and runs never made are left "
                                        "out, never scored 0)"}},
        "comparisons": valid["comparisons"],
        "conditions": valid["conditions"],
        "controls": valid["controls"],
        "control_rows": valid["control_rows"],
        "cells": valid["cells"],
        "worst_cells": sorted((c for c in valid["cells"] if c["schema"] == estimands.NATIVE and c["condition"] in
                               (estimands.NO_SKILL, estimands.WITH_SKILL)),
                              key=lambda c: c["sum_extra_keys"], reverse=True)[:5],
        "runs": [_run_row(run) for run in sorted(loaded.runs, key=lambda r: r.key)],
        "departures": _departures(loaded),
    }
    return _clean(report)


def _departures(loaded: run_records.Loaded) -> list[dict[str, Any]]:
    """Which conventions the runs departed from, per agent and condition: the campaigns' saved diagnoses
    (``m4agent explain``, ``explain.json``) of the runs this report counts; empty when none was made."""
    from m4agent import explain

    counted = {run.run_id for run in loaded.runs if run.valid}
    saved = [record for source in loaded.sources if source["kind"] == run_records.SOURCE_CAMPAIGN
             for key, record in explain.saved(Path(source["path"])).items() if key in counted]
    return explain.departures_by_condition(saved)


def _run_row(run: run_records.RunRecord) -> dict[str, Any]:
    row = asdict(run)
    row["valid"] = run.valid
    row["attempts"] = len(run.attempt_outcomes)
    row["attempt_outcomes"] = " ".join(run.attempt_outcomes)
    row["flags"] = " ".join(run.flags)
    row["match_rates"] = json.dumps(run.match_rates, sort_keys=True)
    return row


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """What ``--json`` prints: the comparisons without their per-task detail, and the validity counts."""
    keep = [{k: v for k, v in c.items() if k not in ("per_task",)} for c in report["comparisons"]]
    return {"comparisons": keep, "validity": report["validity"], "sources": report["sources"]}


def write(report: dict[str, Any], out: Path, figures: bool = True) -> list[Path]:
    """The report folder: report.json, CSV and Markdown tables, figures (PNG and SVG), report.html."""
    from m4agent.reports import page, tables

    out.mkdir(parents=True, exist_ok=True)
    written = [out / REPORT_JSON]
    body = {k: v for k, v in report.items() if k != "runs"}
    (out / REPORT_JSON).write_text(json.dumps(body, indent=2, sort_keys=True) + "\n")
    written += tables.write_csv_tables(report, out)
    written += tables.write_markdown(report, out)
    images: list[Any] = []
    if figures:
        from m4agent.reports import figures as figure_module

        images = figure_module.write_figures(report, out / "figures")
        written += [path for figure in images for path in (figure.png, figure.svg)]
    written.append(page.write_html(report, images, out / "report.html"))
    return written
