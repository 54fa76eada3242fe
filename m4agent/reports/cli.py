"""``m4agent report RESULTS...``: wiring only; the work is in ``m4agent.reports.report``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from m4agent.reports import resampling

console = Console(stderr=True)


def report(
    results: Annotated[list[Path], typer.Argument(
        help="An m4agent campaign folder, a folder of M4Bench result.json files, or an M4Bench run table "
             "(final_*_runs.csv); several are merged, a run key seen again replacing the earlier run.",
        show_default=False)],
    out: Annotated[Path | None, typer.Option("--out", metavar="DIR", help="Folder for report.html, report.json, the CSV and "
                                             "Markdown tables and figures (default: RESULTS/report for a "
                                             "folder, else ./report).", show_default=False)] = None,
    bootstrap_reps: Annotated[int, typer.Option("--bootstrap-reps", help="Bootstrap repetitions.")]
    = resampling.BOOTSTRAP_REPS,
    sign_flip_reps: Annotated[int, typer.Option("--sign-flip-reps", help="Sign-flip test repetitions.")]
    = resampling.SIGN_FLIP_REPS,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the task bootstraps.")] = resampling.SEED,
    sign_flip_seed: Annotated[int, typer.Option("--sign-flip-seed", help="Seed of the sign-flip test.")]
    = resampling.SEED,
    family_seed: Annotated[int, typer.Option("--family-seed", help="Seed of the family-cluster and "
                                             "family-balanced bootstraps.")] = resampling.FAMILY_SEED,
    tasks_dir: Annotated[Path | None, typer.Option("--tasks-dir", help="Task tree giving families and modes "
                                                   "(default: a campaign's own, else the built-in tasks).",
                                                   show_default=False)] = None,
    figures: Annotated[bool, typer.Option("--figures/--no-figures", help="Draw the figures (matplotlib).")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparisons and validity counts as JSON "
                                          "on stdout.")] = False,
) -> None:
    """The paper's estimands, intervals, tables and figures for a set of runs, in one folder."""
    from m4agent.reports import report as report_module
    from m4agent.reports.estimands import Parameters
    from m4agent.reports.tables import fmt, fmt_ci, fmt_p, label, primary

    if min(bootstrap_reps, sign_flip_reps) < 1:
        raise typer.BadParameter("repetitions must be at least 1")
    params = Parameters(bootstrap_reps=bootstrap_reps, sign_flip_reps=sign_flip_reps, seed=seed,
                        sign_flip_seed=sign_flip_seed, family_seed=family_seed)
    built = report_module.build(results, params, tasks_dir)
    target = out or (results[0] / "report" if results[0].is_dir() else Path("report"))
    report_module.write(built, target, figures=figures)
    if as_json:
        sys.stdout.write(json.dumps(report_module.summary(built), indent=2, sort_keys=True) + "\n")
        return
    for c in primary(built):
        console.print(f"{label(c)}: delta {fmt(c['delta'])} {fmt_ci(c['ci_low'], c['ci_high'])}, sign-flip p "
                      f"{fmt_p(c['p_sign_flip'])}, {c['tasks_improved']}/{c['tasks']} tasks improve", soft_wrap=True)
    outcomes = built["validity"]["outcomes"]
    console.print(f"{outcomes['runs']} runs ({outcomes['valid_runs']} valid), {len(built['comparisons'])} "
                  f"comparisons; wrote {target / 'report.html'}", soft_wrap=True)
