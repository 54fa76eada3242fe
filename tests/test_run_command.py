"""`m4agent run` and `m4agent campaign run` as a user meets them: exit codes, a second run of a finished
run, another trial, routes, and the progress bar of a resumed campaign. Real containers, built-in agents.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.harness import cli, docker_engine, shell_campaign, write_matrix

from m4agent import campaign_folder
from m4agent.harness import campaign, records
from m4agent.harness.records import AttemptRecord, Outcome
from m4agent.registry import TASKS_DIR
from m4agent.run_folder import ATTEMPT_FILE, RESULT_FILE

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TASK = "eicu-gcs"


@pytest.fixture(scope="module")
def data_dir(harness_data_dir: Path) -> Path:
    docker_engine()
    return harness_data_dir


def _run(data_dir: Path, folder: Path, *args: str) -> tuple[int, str, str]:
    done = cli("run", TASK, "--dir", str(folder), "--data-dir", str(data_dir), *args, timeout=600)
    return done.returncode, done.stdout, done.stderr


def test_run_exits_2_when_the_agent_leaves_no_output(data_dir: Path, tmp_path: Path) -> None:
    code, out, err = _run(data_dir, tmp_path / "null", "--agent", "null")
    assert code == 2, err[-2000:]
    assert "outcome no_output" in out and "strict fail" in out


def test_run_no_fail_exits_0_on_a_strict_failure(data_dir: Path, tmp_path: Path) -> None:
    code, out, err = _run(data_dir, tmp_path / "null", "--agent", "null", "--no-fail", "--json")
    assert code == 0, err[-2000:]
    assert json.loads(out.splitlines()[-1])["outcome"] == "no_output"


def test_run_exits_2_when_the_agent_fails(data_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "fail.sh"
    script.write_text("exit 3\n")
    code, out, err = _run(data_dir, tmp_path / "fail", "--agent", "shell", "--agent-option", f"script={script}")
    assert code == 2, err[-2000:]
    assert "outcome agent_error" in out


def test_a_finished_run_run_again_says_so_and_how_to_run_another_trial(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "oracle"
    assert _run(data_dir, folder, "--agent", "oracle")[0] == 0
    code, out, err = _run(data_dir, folder, "--agent", "oracle")
    assert code == 0 and "outcome scored" in out
    assert "already run" in err and "--trial 2" in err, err
    [spec] = campaign_folder.planned_runs(folder)
    assert len(records.attempts(campaign_folder.run_folder(folder, spec))) == 1


def test_another_trial_runs_that_trial_alone_beside_the_first(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "oracle"
    assert _run(data_dir, folder, "--agent", "oracle")[0] == 0
    code, _, err = _run(data_dir, folder, "--agent", "oracle", "--trial", "3")
    assert code == 0, err[-2000:]
    assert sorted(spec.trial for spec in campaign_folder.planned_runs(folder)) == [1, 3]


def test_run_takes_routes_and_says_what_they_route(data_dir: Path, tmp_path: Path) -> None:
    code, _, err = _run(data_dir, tmp_path / "routed", "--agent", "oracle", "--route", "api.openai.com=127.0.0.1:9")
    assert code == 0, err[-2000:]
    assert "routed: api.openai.com -> 127.0.0.1:9" in err


def _bar_counts(stderr: str) -> list[str]:
    return re.findall(r"(\d+/\d+)", stderr)


def test_progress_after_a_resume_counts_every_run(data_dir: Path, tmp_path: Path) -> None:
    folder = shell_campaign(tmp_path, TASKS_DIR, "cp /dev/null output.csv\n", [TASK, "mimic-sofa-24h", "eicu-oasis"])
    campaign.run(folder, data_dir, run_canary=False)
    first, second, third = campaign_folder.planned_runs(folder)
    (campaign_folder.run_folder(folder, first) / RESULT_FILE).unlink()  # finished, not yet graded
    runs = campaign_folder.run_folder(folder, second)  # never finished: its only attempt interrupted
    (runs / RESULT_FILE).unlink()
    (runs / "attempts" / "0001" / ATTEMPT_FILE).unlink()
    done = cli("campaign", "run", "--dir", str(folder), "--data-dir", str(data_dir), "--no-canary", timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _bar_counts(done.stderr)[-1] == "3/3", done.stderr


def test_campaign_run_exits_3_when_a_run_is_left_without_a_result(data_dir: Path, tmp_path: Path) -> None:
    matrix = write_matrix(tmp_path / "m.toml", f"""
[campaign]
tasks = ["{TASK}", "eicu-oasis"]
max_retries = 0

[[agents]]
name = "oracle"
""")
    folder = tmp_path / "c"
    campaign.plan(matrix, folder)
    spec = campaign_folder.planned_runs(folder)[0]
    attempt = records.new_attempt(campaign_folder.run_folder(folder, spec))  # Docker failed once: no retry is left
    records.finish_attempt(attempt, AttemptRecord(number=1, outcome=Outcome.INFRA_ERROR, reason="docker failed"))
    done = cli("campaign", "run", "--dir", str(folder), "--data-dir", str(data_dir), "--no-canary", timeout=600)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "1 run(s) out of retries" in done.stderr
