"""The report's tables: what each holds (``Table``), written as CSV for analysis and as Markdown for
a paper. The HTML page renders the same ``Table``s, so a number is formatted in one place.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Table:
    name: str
    title: str
    headers: list[str]
    rows: list[list[str]]
    note: str = ""


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "NA"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def fmt_p(value: float | None) -> str:
    if value is None:
        return "NA"
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def fmt_ci(low: Any, high: Any) -> str:
    return f"[{fmt(low)}, {fmt(high)}]"


def arm(comparison: dict[str, Any], side: str) -> str:
    if comparison["kind"] == "schema":
        return f"{comparison[side]} ({comparison[side + '_schema']})"
    return str(comparison[side])


def label(comparison: dict[str, Any]) -> str:
    """``agent: treatment vs baseline [schema]``."""
    if comparison["kind"] == "schema":
        return (f"{comparison['agent']}: {comparison['treatment']} {comparison['treatment_schema']} vs "
                f"{comparison['baseline_schema']}")
    return f"{comparison['agent']}: {comparison['treatment']} vs {comparison['baseline']} ({comparison['schema']})"


def _strict(comparison: dict[str, Any]) -> str:
    return "; ".join(f"{name} {passes}/{runs}" for name, (passes, runs) in comparison["strict_pass"].items())


def basis(report: dict[str, Any]) -> str:
    """What every estimate rests on: the valid runs, and how many runs are left out and why."""
    outcomes = report["validity"]["outcomes"]
    completeness = report["validity"]["completeness"]
    valid = outcomes["valid_runs"]
    if completeness["plan"]:
        left_out = completeness["expected"] - completeness["observed"]
        text = f"over the {valid} valid runs of {completeness['expected']} planned"
    else:
        left_out = outcomes["runs"] - valid
        text = f"over the {valid} valid runs of {outcomes['runs']}"
    if left_out:
        text += (f"; {left_out} without a valid outcome (quota, infrastructure failure, interrupted or not run) "
                 "are left out, never counted as the model's zero: see Validity")
    return text


def headline(report: dict[str, Any]) -> Table:
    rows = []
    for c in report["comparisons"]:
        rows.append([label(c), str(c["tasks"]), fmt(c["baseline_mean"]), fmt(c["treatment_mean"]),
                     f"{fmt(c['delta'])} {fmt_ci(c['ci_low'], c['ci_high'])}", fmt_p(c["p_sign_flip"]),
                     f"{c['tasks_improved']}/{c['tasks']}", f"{c['tasks_declined']}/{c['tasks']}", _strict(c),
                     fmt(c["key_f1_delta"]), fmt(c["nmae_delta"])])
    return Table("comparisons", "Comparisons: task-balanced deltas",
                 ["Comparison", "Tasks", "Baseline", "Treatment", "Delta [95% CI]", "Sign-flip p", "Improved",
                  "Declined", "Strict passes", "Key F1 delta", "nMAE delta"],
                 rows, "Delta: mean over tasks of the mean over models of the cell-mean difference; interval: "
                 f"percentile bootstrap over tasks; p: two-sided sign-flip test; {basis(report)}.")


def per_task(comparison: dict[str, Any]) -> Table:
    models = comparison["models"]
    rows = [[r["task"], r["family"], r["mode"], fmt(r["baseline_mean"]), fmt(r["treatment_mean"]),
             *[fmt(r["by_model"].get(m)) for m in models], fmt(r["delta"]), fmt(r["key_f1_delta"]),
             fmt(r["nmae_delta"]), str(r["nmae_columns"])]
            for r in sorted(comparison["per_task"], key=lambda r: r["delta"], reverse=True)]
    return Table("per_task", f"Per task: {label(comparison)}",
                 ["Task", "Family", "Mode", arm(comparison, "baseline"), arm(comparison, "treatment"),
                  *[f"Delta {m}" for m in models], "Mean delta", "Key F1 delta", "nMAE delta", "Ordered cols"], rows)


def per_model(comparison: dict[str, Any]) -> Table:
    rows = [[model, fmt(v["baseline_mean"]), fmt(v["treatment_mean"]),
             f"{fmt(v['delta'])} {fmt_ci(v['ci_low'], v['ci_high'])}", f"{v['tasks_improved']}/{v['tasks']}"]
            for model, v in comparison["by_model"].items()]
    rows.append(["Task-balanced", fmt(comparison["baseline_mean"]), fmt(comparison["treatment_mean"]),
                 f"{fmt(comparison['delta'])} {fmt_ci(comparison['ci_low'], comparison['ci_high'])}",
                 f"{comparison['tasks_improved']}/{comparison['tasks']}"])
    rows.append(["Key F1 / task-balanced", fmt(comparison["key_f1_baseline"]), fmt(comparison["key_f1_treatment"]),
                 f"{fmt(comparison['key_f1_delta'])} {fmt_ci(*comparison['key_f1_ci'])}",
                 f"{comparison['key_f1_tasks_improved']}/{comparison['key_f1_tasks']}"])
    rows.append(["Ordered nMAE / task-balanced", fmt(comparison["nmae_baseline"]), fmt(comparison["nmae_treatment"]),
                 f"{fmt(comparison['nmae_delta'])} {fmt_ci(*comparison['nmae_ci'])}",
                 f"{comparison['nmae_tasks_improved']}/{comparison['nmae_tasks']}"])
    return Table("per_model", f"By model: {label(comparison)}",
                 ["Measure", arm(comparison, "baseline"), arm(comparison, "treatment"), "Delta [95% CI]",
                  "Improved tasks"], rows, "nMAE improves when it falls.")


def family(comparison: dict[str, Any]) -> Table:
    fam = comparison["family"]
    rows = [["Task bootstrap", f"{comparison['tasks']} tasks", fmt(comparison["delta"]),
             fmt_ci(comparison["ci_low"], comparison["ci_high"])],
            ["Family-cluster bootstrap", f"{fam['families']} families", fmt(comparison["delta"]),
             fmt_ci(*fam["cluster_ci"])],
            ["Family-balanced bootstrap", f"{fam['families']} families", fmt(fam["balanced_mean"]),
             fmt_ci(*fam["balanced_ci"])]]
    return Table("family", f"Sensitivity to task families: {label(comparison)}",
                 ["Analysis", "Units", "Mean delta", "95% interval"], rows,
                 "A sensitivity view of the headline (the same valid runs, resampled by family).")


def modes(comparison: dict[str, Any]) -> Table:
    rows = []
    for mode, v in comparison["by_mode"].items():
        for model, m in v["by_model"].items():
            rows.append([model, mode, str(m["tasks"]), fmt(m["delta"]), f"{m['tasks_improved']}/{m['tasks']}"])
    for mode, v in comparison["by_mode"].items():
        rows.append(["Task-balanced", mode, str(v["tasks"]), fmt(v["delta"]), f"{v['tasks_improved']}/{v['tasks']}"])
    return Table("modes", f"By mode: {label(comparison)}", ["Model", "Mode", "Tasks", "Mean delta",
                                                             "Improved tasks"], rows)


def conditions(report: dict[str, Any]) -> Table:
    rows = [[r["agent"], r["schema"], r["condition"], str(r["tasks"]), str(r["cells"]), str(r["runs"]),
             fmt(r["mean_reward"]), f"{r['strict_passes']}/{r['runs']}", fmt(r["mean_key_f1"]),
             fmt(r["mean_key_precision"]), fmt(r["mean_nmae"]), str(r["sum_extra_keys"])]
            for r in report["conditions"]]
    return Table("conditions", "Conditions: runs, strict passes and key metrics",
                 ["Agent", "Schema", "Condition", "Tasks", "Cells", "Runs", "Mean reward", "Strict passes",
                  "Mean key F1", "Mean key precision", "Mean nMAE", "Extra keys"], rows,
                 "Key F1, key precision and nMAE: means over cells; mean reward: over valid runs.")


def controls(report: dict[str, Any]) -> Table:
    rows = [[r["agent"], r["condition"], str(r["tasks"]), fmt(r["no_skill_mean"]), fmt(r["with_skill_mean"]),
             fmt(r["control_mean"]), fmt(r["control_minus_with_skill"]), fmt(r["control_minus_no_skill"])]
            for r in report["controls"]]
    return Table("controls", "Matched controls (native; each control beside no-skill and with-skill on the "
                 "same task and model)", ["Agent", "Control", "Tasks", "No skill", "Targeted", "Control",
                                          "Control-targeted", "Control-no skill"], rows)


def worst_cells(report: dict[str, Any]) -> Table:
    rows = [[f"{c['task']} / {c['condition']} / {c['model']}", str(c["n"]), fmt(c["mean_key_f1"]),
             fmt(c["mean_key_precision"]), str(c["sum_extra_keys"])] for c in report["worst_cells"]]
    return Table("worst_cells", "Cells with the most extra keys", ["Cell", "Runs", "Mean key F1",
                                                                    "Mean key precision", "Extra keys"], rows)


def validity_tables(report: dict[str, Any]) -> list[Table]:
    v = report["validity"]
    comp = v["completeness"]
    rows = [["Expected runs (plan)", fmt(comp["expected"]) if comp["plan"] else "no plan"],
            ["Runs with a valid final outcome", str(comp["observed"])],
            ["Missing runs", str(len(comp["missing"])) if comp["plan"] else "NA"],
            ["Unexpected runs", str(len(comp["unexpected"])) if comp["plan"] else "NA"]]
    rows += [[f"Final outcome: {k}", str(n)] for k, n in v["outcomes"]["final"].items()]
    rows += [[f"Attempts: {k}", str(n)] for k, n in v["outcomes"]["attempts"].items()]
    names = {"runs": "Runs", "cells": "Cells", "publishable_failures": "Not publishable",
             "isolation_failures": "Isolation flag failures", "filesystem_canary_failures": "Filesystem canary "
             "failures", "contamination_lint_failures": "Contamination-lint failures",
             "policy_violations": "Policy violations",
             "flagged_for_review": "Flagged for review (graded; e.g. an output identical to the truth)",
             "over_run_budget": "Runs over the per-run budget ([budget] per_run_usd; graded)",
             "nonzero_agent_exits": "Nonzero agent exits",
             "missing_rewards": "Missing rewards", "strict_passes": "Fully passing (strict) runs",
             "diagnostic_failures": "Runs with a failed strict check", "agent_hours": "Agent wall-clock hours"}
    rows += [[names[k], fmt(val, 1) if isinstance(val, float) else fmt(val)] for k, val in v["integrity"].items()]
    out = [Table("validity", "Validity: completeness, outcomes and integrity", ["Quantity", "Count"], rows)]
    listed = [[kind, item] for kind in ("missing", "unexpected") for item in comp[kind]]
    if listed:
        out.append(Table("completeness", "Missing and unexpected runs", ["Kind", "Run"], listed[:500],
                         "At most 500 listed; report.json has them all." if len(listed) > 500 else ""))
    flagged = [[f"{r['agent']} {r['task']} {r['condition']} {r['schema']} {r['model']} trial {r['trial']}",
                r["flags"], fmt(r["reward"])] for r in report["runs"] if r.get("flags")]
    if flagged:
        out.append(Table("flagged", "Runs flagged for review (graded and counted; read their outputs)",
                         ["Run", "Flags", "Reward"], flagged[:500],
                         "At most 500 listed; report.json has them all." if len(flagged) > 500 else ""))
    return out


def departures(report: dict[str, Any]) -> Table:
    """Which conventions the runs departed from, per agent and condition (``m4agent explain``)."""
    rows = [[r["agent"], r["condition"], r["label"] or r["reading"], str(r["runs_best"]), str(r["runs_explained"]),
             f"{r['runs_with_mismatches']} of {r['runs']}"] for r in report.get("departures", [])]
    return Table("departures", "Conventions the runs departed from (m4agent explain)",
                 ["agent", "condition", "reading", "runs it explains best", "runs it explains",
                  "runs with mismatches"], rows,
                 "Each run's output graded against its reference under every alternative reading of a documented "
                 "convention (docs/explain.md). Do skills remove exactly the departures they document? Compare a "
                 "reading's runs across conditions.")


def primary(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The comparisons shown in full: no-skill against with-skill, per agent and schema (else the first)."""
    found = [c for c in report["comparisons"] if c["baseline"] == "no-skill" and c["treatment"] == "with-skill"
             and c["kind"] == "condition"]
    return found or report["comparisons"][:1]


def all_tables(report: dict[str, Any]) -> list[Table]:
    tables = [headline(report)]
    for comparison in primary(report):
        tables += [per_model(comparison), family(comparison), modes(comparison), per_task(comparison)]
    tables += [conditions(report), departures(report), controls(report), worst_cells(report),
               *validity_tables(report)]
    return [t for t in tables if t.rows]


def markdown(table: Table) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [f"### {table.title}", "", "| " + " | ".join(cell(h) for h in table.headers) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.headers))) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in table.rows]
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"


def write_markdown(report: dict[str, Any], out: Path) -> list[Path]:
    path = out / "tables.md"
    path.write_text("# m4agent report: tables\n\n" + "\n".join(markdown(t) for t in all_tables(report)))
    return [path]


def _write_csv(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    rows = list(rows)
    names: list[str] = []
    for row in rows:
        names += [k for k in row if k not in names]
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=names)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()})
    return path


def write_csv_tables(report: dict[str, Any], out: Path) -> list[Path]:
    """runs.csv, cells.csv, comparisons.csv, task_deltas.csv, controls.csv, conditions.csv, departures.csv."""
    flat = []
    deltas = []
    for c in report["comparisons"]:
        flat.append({k: v for k, v in c.items() if k not in ("per_task", "by_mode")})
        for row in c["per_task"]:
            deltas.append({"agent": c["agent"], "baseline": c["baseline"], "treatment": c["treatment"],
                           "baseline_schema": c["baseline_schema"], "treatment_schema": c["treatment_schema"],
                           **row})
    return [_write_csv(out / "runs.csv", report.get("runs", [])), _write_csv(out / "cells.csv", report["cells"]),
            _write_csv(out / "comparisons.csv", flat), _write_csv(out / "task_deltas.csv", deltas),
            _write_csv(out / "controls.csv", report["control_rows"]),
            _write_csv(out / "conditions.csv", report["conditions"]),
            _write_csv(out / "departures.csv", report.get("departures", []))]
