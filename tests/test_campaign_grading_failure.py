"""A grading failure that is no run's (a damaged data directory) gives no run a zero.

The campaign's grader must tell a run's failure from the environment's: when dbt cannot grade any
run of a batch, the fault is not the runs', so none gets a result; they stay waiting for grading and
the next `campaign run` grades them once the fault is gone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.harness import shell_campaign

from m4agent.grading.batch import GradingRunFailed
from m4agent.harness import campaign, records
from m4agent.harness.records import RunState
from m4agent.registry import TASKS_DIR
from m4agent.run_folder import RESULT_FILE, read_json

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TASKS = ["eicu-gcs", "eicu-oasis"]


def test_damaged_data_directory_gives_no_run_a_zero_and_the_next_start_grades_them(
        engine: Any, harness_data_dir: Path, tmp_path: Path) -> None:
    campaign_dir = shell_campaign(tmp_path, TASKS_DIR, "echo patientunitstayid > output.csv\n", TASKS)
    campaign.run(campaign_dir, harness_data_dir, run_canary=False)
    specs = campaign.planned_runs(campaign_dir)
    for spec in specs:  # back to "graded next": the attempts stand, the grading is to be done again
        (records.run_folder(campaign_dir, spec) / RESULT_FILE).unlink()
    matrix, tasks, _ = campaign._matrix(campaign_dir)
    # where dbt writes the SQL it runs for grading: a file in its place fails every grading, no run's fault
    compiled = harness_data_dir / "dbt" / "grading" / "run"
    aside = compiled.with_name("run.aside")
    compiled.rename(aside)
    compiled.write_text("not a folder")
    try:
        with pytest.raises(GradingRunFailed):
            campaign.Grader(campaign_dir, harness_data_dir, tasks, matrix).grade(specs)
    finally:
        compiled.unlink()
        aside.rename(compiled)
    for spec in specs:
        folder = records.run_folder(campaign_dir, spec)
        assert not (folder / RESULT_FILE).exists()
        assert records.state(folder, matrix.max_retries) is RunState.GRADING
    campaign.run(campaign_dir, harness_data_dir, run_canary=False)
    for spec in specs:
        result = read_json(records.run_folder(campaign_dir, spec) / RESULT_FILE)
        assert "grading" in result and result["attempts"] == 1, result
