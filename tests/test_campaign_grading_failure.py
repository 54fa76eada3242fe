"""A grading failure that is no run's (dbt cannot write its compiled SQL, another program holds the
data directory's database) gives no run a zero.

The campaign's grader must tell a run's failure from the environment's: when dbt cannot grade any
run of a batch, the fault is not the runs', so none gets a result. It is infrastructure: the runs
keep their one attempt and wait for grading, `campaign run` ends incomplete (exit 3) saying so, and
the next start grades them once the fault is gone. (Before commit a54419e the campaign wrote a
reward-0 result.json for every run of the batch: the first assertion of each test fails there.)
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.harness import cli, shell_campaign

from m4agent import campaign_folder
from m4agent.errors import EXIT_INCOMPLETE, EXIT_OK
from m4agent.harness import campaign, records
from m4agent.harness.records import Outcome, RunState
from m4agent.paths import database_path
from m4agent.registry import TASKS_DIR
from m4agent.run_folder import RESULT_FILE, read_json

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TASKS = ["eicu-gcs", "eicu-oasis"]
SCRIPT = "echo patientunitstayid > output.csv\n"


class GradingFault:
    """A file where dbt writes the SQL it runs for grading (``DIR/dbt/grading/run``): every grading
    fails, and no run is to blame. ``start`` puts it in place, ``end`` restores the folder."""

    def __init__(self, data_dir: Path) -> None:
        self.compiled = data_dir / "dbt" / "grading" / "run"
        self.aside = self.compiled.with_name("run.aside")
        self.started = False

    def start(self) -> None:
        self.compiled.parent.mkdir(parents=True, exist_ok=True)
        if self.compiled.exists():
            self.compiled.rename(self.aside)
        self.compiled.write_text("not a folder")
        self.started = True

    def end(self) -> None:
        if self.started:
            self.compiled.unlink()
            if self.aside.exists():
                self.aside.rename(self.compiled)


class LockedDatabase:
    """Another process holding the data directory's MIMIC-IV database open for writing: grading cannot
    load a batch (DuckDB's file lock), and no run is to blame."""

    def __init__(self, data_dir: Path) -> None:
        self.database = database_path(data_dir, "mimic-iv")
        self.holder: subprocess.Popen[str] | None = None
        self.started = False

    def start(self) -> None:
        self.holder = subprocess.Popen(
            [sys.executable, "-c", "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('held', "
             "flush=True); time.sleep(3600)", str(self.database)], stdout=subprocess.PIPE, text=True)
        assert self.holder.stdout is not None and self.holder.stdout.readline().strip() == "held"
        self.started = True

    def end(self) -> None:
        if self.holder is not None:
            self.holder.kill()
            self.holder.wait()


FAULTS = {"dbt_cannot_write_its_sql": (GradingFault, "dbt build"),
          "database_held_by_another_program": (LockedDatabase, "mimic_iv.duckdb")}


@contextlib.contextmanager
def fault(data_dir: Path, kind: type[GradingFault] | type[LockedDatabase] = GradingFault
          ) -> Iterator[GradingFault | LockedDatabase]:
    held = kind(data_dir)
    try:
        yield held
    finally:
        held.end()


def _waiting_for_grading_with_one_scored_attempt(campaign_dir: Path) -> None:
    """No run has a result; each kept its one attempt (the agent's answer, not re-run) and waits for grading."""
    matrix, _, _ = campaign._matrix(campaign_dir)
    for spec in campaign_folder.planned_runs(campaign_dir):
        folder = campaign_folder.run_folder(campaign_dir, spec)
        assert not (folder / RESULT_FILE).exists(), read_json(folder / RESULT_FILE)
        assert [a.outcome for a in records.attempts(folder)] == [Outcome.SCORED]
        assert records.state(folder, matrix.max_retries) is RunState.GRADING


def _graded_once(campaign_dir: Path) -> None:
    for spec in campaign_folder.planned_runs(campaign_dir):
        result = read_json(campaign_folder.run_folder(campaign_dir, spec) / RESULT_FILE)
        assert result["grading"]["errors"] == [] and result["attempts"] == 1, result


@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_a_grading_fault_mid_campaign_gives_no_run_a_zero_and_the_next_start_scores_them(
        engine: Any, harness_data_dir: Path, tmp_path: Path, kind: str) -> None:
    fault_type, reason = FAULTS[kind]
    campaign_dir = shell_campaign(tmp_path, TASKS_DIR, SCRIPT, TASKS, settings="workers = 1")
    with fault(harness_data_dir, fault_type) as held:
        def fault_once_an_agent_has_run(kind: str, spec: Any, record: Any) -> None:
            if kind == "end" and not held.started:  # before any run is handed to the grader
                held.start()

        summary = campaign.run(campaign_dir, harness_data_dir, run_canary=False, on_event=fault_once_an_agent_has_run)
    _waiting_for_grading_with_one_scored_attempt(campaign_dir)
    assert summary["states"] == {"grading": len(TASKS)}
    assert reason in summary["grading_failed"], summary
    resumed = cli("campaign", "run", "--dir", str(campaign_dir), "--data-dir", str(harness_data_dir), "--no-canary")
    assert resumed.returncode == EXIT_OK, resumed.stderr[-3000:]
    _graded_once(campaign_dir)


def test_campaign_run_ends_incomplete_when_grading_fails_for_no_runs_reason(
        engine: Any, harness_data_dir: Path, tmp_path: Path) -> None:
    campaign_dir = shell_campaign(tmp_path, TASKS_DIR, SCRIPT, TASKS)
    with fault(harness_data_dir) as held:
        held.start()
        done = cli("campaign", "run", "--dir", str(campaign_dir), "--data-dir", str(harness_data_dir), "--no-canary")
    _waiting_for_grading_with_one_scored_attempt(campaign_dir)
    assert done.returncode == EXIT_INCOMPLETE, done.stderr[-3000:]
    assert f"{len(TASKS)} run(s) waiting for grading (an infrastructure failure, no run's" in " ".join(done.stderr.split())
