"""What a report's estimates rest on: valid runs only, whatever stopped the others.

An oracle-like agent scores 1.0 on every run, with and without skills: its skill effect is 0. A run the
provider refused (quota), the harness lost, or the operator interrupted says nothing about the model;
counted as the model's zero anywhere in the report, it would turn into a skill effect of its own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from m4agent.reports import page, report, tables
from m4agent.reports.estimands import Parameters

SMALL = Parameters(bootstrap_reps=200, sign_flip_reps=200)
TASKS = ("mimic-sofa-24h", "eicu-gcs")


def _result(folder: Path, task: str, condition: str, trial: int, failure_reason: str | None = None) -> None:
    """One run as M4Bench's run.py exports it: reward 1.0, or a refusal it scored 0."""
    run = folder / f"{task}_{condition}_t{trial}"
    run.mkdir(parents=True)
    agent = {"returncode": 0, **({"failure_reason": failure_reason} if failure_reason else {})}
    test = {"reward": 0.0 if failure_reason else 1.0, "errors": 1 if failure_reason else 0, "failed": 0}
    (run / "result.json").write_text(json.dumps({
        "task": task, "condition": condition, "schema": "native", "agent": "codex", "model": "m", "trial": trial,
        "run_id": run.name, "test_results": test, "agent_result": agent}))


@pytest.fixture(scope="module")
def refused_once(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Two tasks x no-skill/with-skill x 2 trials, all 1.0 but one with-skill run the provider refused."""
    folder = tmp_path_factory.mktemp("results")
    for task in TASKS:
        for condition in ("no-skill", "with-skill"):
            for trial in (1, 2):
                refused = (task, condition, trial) == (TASKS[0], "with-skill", 2)
                _result(folder, task, condition, trial, "rate_limit" if refused else None)
    return report.build([folder], SMALL)


def test_a_refused_run_is_left_out_of_the_headline_not_scored_zero(refused_once: dict) -> None:
    [headline] = tables.primary(refused_once)
    assert (headline["baseline_mean"], headline["treatment_mean"], headline["delta"]) == (1.0, 1.0, 0.0)


def test_no_delta_anywhere_on_the_page_counts_the_refusal_as_a_zero(refused_once: dict) -> None:
    html = page.render(refused_once, [])
    box = html[html.index('<div class="headline">'):html.index("<h2>Figures")]
    assert set(re.findall(r"delta (-?\d+\.\d{3})", box)) == {"0.000"}, box
    markdown = tables.markdown(tables.headline(refused_once))
    row = next(line for line in markdown.splitlines() if line.startswith("| codex"))
    assert set(re.findall(r"-?\d+\.\d{3}", row)) <= {"0.000", "1.000"}, row


def test_the_headline_says_how_many_runs_it_rests_on_and_why_some_are_left_out(refused_once: dict) -> None:
    html = page.render(refused_once, [])
    box = html[html.index('<div class="headline">'):html.index("<h2>Figures")]
    assert "7 valid runs of 8" in box and "never counted as the model&#x27;s zero" in box
