"""What ``m4agent grade`` does with its arguments: choose single or campaign mode, print."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from m4agent.errors import EXIT_OK, EXIT_STRICT_FAIL, M4AgentError
from m4agent.grading.grade import grade_file
from m4agent.grading.results_tree import discover_runs, grade_results_root
from m4agent.grading.summary import failure_summary
from m4agent.registry import TASKS_DIR, all_tasks
from m4agent.run_folder import OUTPUT_NAME, RUN_FILE

console = Console(stderr=True)


def print_summary(result: dict[str, Any], out: Console) -> None:
    """A human-readable summary of one result."""
    verdict = "[green]strict pass[/]" if result["strict_pass"] else "[red]strict fail[/]"
    out.print(f"[bold]{escape(str(result['task']))}[/] run {escape(result['run_id'])}: "
              f"reward [bold]{result['reward']:.6f}[/], {verdict}")
    out.print(f"keys: precision {result['key_precision']:.4f}, recall {result['key_recall']:.4f}, "
              f"F1 {result['key_f1']:.4f}; agent rows {result['agent_rows']}, unique keys "
              f"{result['agent_unique_keys']}, extra {result['extra_keys']}, duplicates "
              f"{result['duplicate_rows']}; truth rows {result['truth_rows']}")
    if result["match_rates"]:
        table = Table("column", "match rate", box=None)
        for column, rate in result["match_rates"].items():
            table.add_row(column, f"{rate:.6f}")
        out.print(table)
    for check in result["checks"]:
        if not check["passed"]:
            out.print(f"[red]failed[/] {escape(check['name'])}: {escape(check['detail'])}", soft_wrap=True)
    for error in result["errors"]:
        out.print(f"[red]error[/] {escape(error)}", soft_wrap=True)
    if "expectations_pass" in result:
        agree = "agree" if result["expectations_pass"] == result["strict_pass"] else "DISAGREE"
        out.print(f"Great Expectations: {'pass' if result['expectations_pass'] else 'fail'} ({agree})")


def run_grade(task: str | None, output: Path | None, data_dir: Path, results_root: Path | None,
              force: bool, as_json: bool, expectations: bool, tasks_dir: Path | None = None,
              no_fail: bool = False) -> int:
    """Grade and print; the exit code: EXIT_STRICT_FAIL when a graded output failed the strict checks
    (unless ``no_fail``), else EXIT_OK."""
    tasks_dir = tasks_dir.resolve() if tasks_dir else TASKS_DIR
    stdout = Console(soft_wrap=True)
    if results_root is not None:
        if task or output:
            raise M4AgentError("give either TASK OUTPUT.csv or --results-root DIR, not both")
        found = len(discover_runs(results_root, all_tasks(tasks_dir))) if results_root.is_dir() else 0
        if results_root.is_dir() and not found:
            raise M4AgentError(f"no run folder under {results_root}: a run folder holds {OUTPUT_NAME} and a "
                               f"{RUN_FILE} naming its task, e.g. {{\"task\": \"mimic-sofa-24h\"}}; grade "
                               "a single file with `m4agent grade TASK FILE.csv`")
        results = grade_results_root(results_root, data_dir, force=force, tasks_dir=tasks_dir,
                                     expectations=expectations)
        for result in results.values():
            if as_json:
                sys.stdout.write(json.dumps(result) + "\n")
        skipped = found - len(results)
        if not as_json:
            # Runs whose task is unknown (no or bad run.json) are reported, never averaged as reward 0.
            scored = [r for r in results.values() if r["task"] is not None]
            passed = sum(r["strict_pass"] for r in scored)
            if scored:
                mean = sum(r["reward"] for r in scored) / len(scored)
                stdout.print(f"graded {len(scored)} runs under {escape(str(results_root))}: mean reward "
                             f"{mean:.4f}, {passed} strict passes (result.json in each run folder)")
            else:
                stdout.print(f"graded no run under {escape(str(results_root))}")
            if len(scored) < len(results):
                stdout.print(f"{len(results) - len(scored)} run folder(s) name no known task (left out of "
                             "the mean; the reason is in their result.json)")
            if skipped:
                stdout.print(f"{skipped} run(s) already graded were skipped (their result.json is kept; "
                             "--force grades them again)")
            failures = failure_summary(results)
            if failures:
                stdout.print(f"{sum(count for _, count in failures)} runs have an error (the reason is in "
                             "their result.json):")
                for kind, count in failures:
                    stdout.print(f"  {count:>5}  {escape(kind)}", soft_wrap=True)
            if expectations:
                agree = sum(r["expectations_pass"] == r["strict_pass"] for r in results.values())
                stdout.print(f"Great Expectations: {sum(r['expectations_pass'] for r in results.values())} "
                             f"passes; the two verdicts agree on {agree} of {len(results)} runs")
        failed = any(not r["strict_pass"] for r in results.values())
        return EXIT_STRICT_FAIL if failed and not no_fail else EXIT_OK
    if not task or output is None:
        raise M4AgentError("usage: m4agent grade TASK OUTPUT.csv, or m4agent grade --results-root DIR")
    if not output.is_file():  # the caller's own argument: an input error, not the agent's strict failure
        raise M4AgentError(f"{output} {'is a folder' if output.is_dir() else 'does not exist'}; give the agent's "
                           "output CSV (a campaign folder is graded with --results-root DIR)")
    result = grade_file(task, output, data_dir, tasks_dir=tasks_dir, expectations=expectations)
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        print_summary(result, stdout)
    return EXIT_STRICT_FAIL if not result["strict_pass"] and not no_fail else EXIT_OK
