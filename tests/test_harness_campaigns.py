"""The harness end to end, through real containers: oracle, null and hostile agents, crashes, limits.

Built once per module: a small synthetic data directory with every reference, and, on our own
task tree (``m4agent/tasks``, with its skills and specifications), an oracle campaign over all 28 tasks x
the six conditions (native) plus the MIMIC-IV tasks under the obfuscated and restructured
schemas. The other tests reuse its results as the uninterrupted baseline.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.harness import (
    campaign_id,
    cli,
    results,
    shell_campaign,
    write_matrix,
)

from m4agent import campaign_folder
from m4agent.harness import campaign, container, records
from m4agent.harness.records import Outcome
from m4agent.registry import TASKS_DIR, all_tasks
from m4agent.run_folder import read_json

pytestmark = [pytest.mark.docker, pytest.mark.slow]

CONDITIONS = '["no-skill", "with-skill", "with-skill-all", "with-skill-decoy", "with-skill-rawsql", "operational-spec"]'
MIMIC_TASKS = None  # filled from the tree


@pytest.fixture(scope="module")
def data_dir(harness_data_dir: Path) -> Path:
    return harness_data_dir


@pytest.fixture(scope="module")
def tree() -> Path:
    """Our own task tree, with its skills and specifications: every condition runs on it."""
    return TASKS_DIR


def _mimic_tasks(tree: Path) -> list[str]:
    return [name for name, task in all_tasks(tree).items() if task.dataset == "mimic-iv"]


@pytest.fixture(scope="module")
def oracle_campaign(engine: Any, data_dir: Path, tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("oracle_campaign")
    mimic = ", ".join(f'"{name}"' for name in _mimic_tasks(tree))
    matrix = write_matrix(folder / "matrix.toml", f"""
[campaign]
workers = 2

[[agents]]
name = "oracle"

[[blocks]]
tasks = ["*"]
conditions = {CONDITIONS}
schemas = ["native"]

[[blocks]]
tasks = [{mimic}]
conditions = ["no-skill"]
schemas = ["obfuscated", "restructured"]
""")
    campaign_dir = folder / "campaign"
    campaign.plan(matrix, campaign_dir, tasks_dir=tree)
    campaign.run(campaign_dir, data_dir)
    return campaign_dir


def test_oracle_campaign_plans_every_task_condition_and_schema(oracle_campaign: Path) -> None:
    specs = campaign_folder.planned_runs(oracle_campaign)
    assert len(specs) == 28 * 6 + 26 * 2
    assert {s.schema for s in specs} == {"native", "obfuscated", "restructured"}


def test_oracle_scores_one_on_every_run(oracle_campaign: Path) -> None:
    found = results(oracle_campaign)
    assert len(found) == 220
    below = {r["task"] + " " + r["condition"] + " " + r["schema"]: (r["outcome"], r["reward"], r.get("reason"))
             for r in found.values() if r["outcome"] != "scored" or r["reward"] != 1.0 or not r["strict_pass"]}
    assert below == {}


def test_oracle_runs_are_never_publishable(oracle_campaign: Path) -> None:
    assert not any(r["publishable"] for r in results(oracle_campaign).values())


def test_run_folder_holds_the_records_a_reader_needs(oracle_campaign: Path) -> None:
    spec = campaign_folder.planned_runs(oracle_campaign)[0]
    folder = campaign_folder.run_folder(oracle_campaign, spec)
    for name in ("run.json", "instruction.md", "output.csv", "trace.log", "egress.jsonl", "result.json"):
        assert (folder / name).is_file(), name
    assert records.read_spec(folder) == spec


def test_campaign_lock_records_the_stack(oracle_campaign: Path) -> None:
    lock = read_json(oracle_campaign / campaign.LOCK_FILE)
    assert lock["image"]["id"].startswith("sha256:")
    assert len(lock["tasks"]) == 28 and set(lock["databases"]) == {"native", "obfuscated", "restructured"}
    assert lock["isolation_policy"]["network"] == "none" and len(lock["isolation_policy"]["egress"]) == 64
    assert lock["project_commit"]


def test_canary_finds_nothing_reachable(oracle_campaign: Path) -> None:
    report = read_json(oracle_campaign / "canary.json")
    assert report["passed"] and len(report["probes"]) > 20
    assert all(probe["denied"] for probe in report["probes"])


def test_no_container_is_left_after_a_campaign(engine: Any, oracle_campaign: Path) -> None:
    assert container.labelled(engine, campaign=campaign_id(oracle_campaign)) == []


def test_resuming_a_finished_campaign_starts_no_attempt(oracle_campaign: Path, data_dir: Path) -> None:
    before = campaign.status(oracle_campaign)["attempts"]
    campaign.run(oracle_campaign, data_dir, run_canary=False)
    assert campaign.status(oracle_campaign)["attempts"] == before


@pytest.fixture(scope="module")
def null_campaign(engine: Any, data_dir: Path, tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("null_campaign")
    matrix = write_matrix(folder / "matrix.toml", """
[campaign]
tasks = ["*"]
conditions = ["no-skill"]
workers = 2

[[agents]]
name = "null"
""")
    campaign_dir = folder / "campaign"
    campaign.plan(matrix, campaign_dir, tasks_dir=tree)
    campaign.run(campaign_dir, data_dir, run_canary=False)
    return campaign_dir


def test_null_agent_ends_no_output_with_reward_zero_on_every_task(null_campaign: Path) -> None:
    found = results(null_campaign)
    assert len(found) == 28
    assert {(r["outcome"], r["reward"], r["strict_pass"]) for r in found.values()} == {("no_output", 0.0, False)}


def _probe_setup(folder: Path, data_dir: Path, campaign_dir: Path) -> tuple[Path, Path]:
    """The hostile script and its targets: the real host paths of what it must not reach."""
    home = folder / "home"
    secret = home / ".codex" / "auth.json"
    secret.parent.mkdir(parents=True)
    secret.write_text('{"access_token": "test-secret-not-real"}')
    script = folder / "probe_agent.sh"
    script.write_text((Path(__file__).parent / "support" / "probe_agent.sh").read_text())
    (folder / "probe_targets.env").write_text(
        f'DATA_DIR="{data_dir}"\nCAMPAIGN_DIR="{campaign_dir}"\nHOST_SECRET="{secret}"\n')
    return script, home


def test_hostile_shell_agent_is_denied_every_probe_and_flagged(engine: Any, data_dir: Path, tree: Path,
                                                               tmp_path: Path) -> None:
    script, home = _probe_setup(tmp_path, data_dir, tmp_path / "probe" / "campaign")
    # the targets travel inside the script: the shell agent mounts one file
    body = script.read_text().replace('. "$(dirname "$0")/probe_targets.env"',
                                      (tmp_path / "probe_targets.env").read_text())
    (tmp_path / "probe").mkdir()
    campaign_dir = shell_campaign(tmp_path / "probe", tree, body, ["mimic-sofa-24h"])
    env_home = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        campaign.run(campaign_dir, data_dir)
    finally:
        if env_home is not None:
            os.environ["HOME"] = env_home
    [spec] = campaign_folder.planned_runs(campaign_dir)
    folder = campaign_folder.run_folder(campaign_dir, spec)
    probes = [line.split()[1:3] for line in (folder / "trace.log").read_text().splitlines()
              if line.startswith("PROBE ")]
    assert {name for name, _ in probes} == {"references", "reference_exports", "other_runs", "host_secret",
                                            "home_secret", "docker_socket", "docker_socket_run", "solution",
                                            "egress", "dns"}
    assert [name for name, verdict in probes if verdict != "DENIED"] == []
    result = read_json(folder / "result.json")
    assert result["outcome"] == "policy_violation" and result["reward"] == 0.0
    [final] = records.attempts(folder)
    denied = [v for v in final.violations if v["rule"] == "egress"]
    assert "forbidden.example.invalid" in {v.get("host") for v in denied}


def test_agent_past_its_time_limit_is_killed_and_recorded_timeout(engine: Any, data_dir: Path, tree: Path,
                                                                   tmp_path: Path) -> None:
    campaign_dir = shell_campaign(tmp_path, tree, "echo started; sleep 600; echo never > output.csv\n",
                                  ["eicu-gcs"], "[limits]\nagent_seconds = 3")
    campaign.run(campaign_dir, data_dir, run_canary=False)
    [spec] = campaign_folder.planned_runs(campaign_dir)
    folder = campaign_folder.run_folder(campaign_dir, spec)
    result = read_json(folder / "result.json")
    assert result["outcome"] == Outcome.TIMEOUT.value and result["reward"] == 0.0
    # killed, not waited for: the line after the sleep never ran and no container is left
    assert not (folder / "output.csv").exists()
    assert container.labelled(engine, campaign=campaign_id(campaign_dir)) == []


def test_a_second_harness_on_one_campaign_fails_fast_with_no_wait(oracle_campaign: Path, data_dir: Path) -> None:
    from m4agent.errors import M4AgentError

    with campaign._exclusive(oracle_campaign, wait=True), pytest.raises(M4AgentError, match="another m4agent"):
        campaign.run(oracle_campaign, data_dir, wait=False)


def test_campaign_killed_at_random_moments_resumes_to_the_uninterrupted_results(
        engine: Any, data_dir: Path, tree: Path, oracle_campaign: Path, null_campaign: Path,
        tmp_path: Path) -> None:
    tasks = sorted(all_tasks(tree))
    null_tasks = ", ".join(f'"{t}"' for t in tasks[:16])
    matrix = write_matrix(tmp_path / "matrix.toml", f"""
[campaign]
workers = 2

[[agents]]
name = "oracle"

[[agents]]
name = "null"

[[blocks]]
agents = ["oracle"]
tasks = ["*"]
conditions = ["no-skill", "with-skill", "operational-spec"]

[[blocks]]
agents = ["null"]
tasks = [{null_tasks}]
conditions = ["no-skill"]
""")
    campaign_dir = tmp_path / "campaign"
    planned = campaign.plan(matrix, campaign_dir, tasks_dir=tree)
    assert len(planned.runs) == 100
    command = [sys.executable, "-m", "m4agent.cli", "campaign", "run", "--dir", str(campaign_dir),
               "--data-dir", str(data_dir), "--json"]
    chance = random.Random(20261201)
    kills = 0
    for _ in range(4):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(chance.uniform(4.0, 16.0))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait()
    assert kills >= 2
    finished = subprocess.run(command, capture_output=True, text=True, timeout=1500)
    assert finished.returncode == 0, finished.stderr[-2000:]

    baseline = {**results(oracle_campaign), **results(null_campaign)}
    found = results(campaign_dir)
    assert len(found) == 100
    differing = {key: (r["outcome"], r["reward"]) for key, r in found.items()
                 if (r["outcome"], r["reward"], r["strict_pass"]) !=
                 (baseline[key]["outcome"], baseline[key]["reward"], baseline[key]["strict_pass"])}
    assert differing == {}
    for spec in campaign_folder.planned_runs(campaign_dir):
        ended = records.attempts(campaign_folder.run_folder(campaign_dir, spec))
        assert sum(1 for r in ended if not r.outcome.retryable) == 1, spec.label
        assert all(r.reason == records.INTERRUPTED for r in ended if r.outcome.retryable), spec.label
    assert container.labelled(engine, campaign=campaign_id(campaign_dir)) == []


def test_secrets_reach_the_agent_but_not_docker_inspect_or_the_records(engine: Any, data_dir: Path, tree: Path,
                                                                       tmp_path: Path) -> None:
    token = "m4agent-test-token-5f2c9a1e"
    campaign_dir = shell_campaign(tmp_path, tree, f'[ "$TEST_TOKEN" = "{token}" ] && echo token-present; sleep 6\n',
                                  ["eicu-gcs"])
    found_id = campaign_id(campaign_dir)
    seen: list[dict] = []
    worker = threading.Thread(target=campaign.run, args=(campaign_dir, data_dir),
                              kwargs={"run_canary": False, "secrets": {"TEST_TOKEN": token}})
    worker.start()
    deadline = time.monotonic() + 120
    while worker.is_alive() and not seen and time.monotonic() < deadline:
        seen = [c.attrs for c in container.labelled(engine, campaign=found_id, role="agent")]
        time.sleep(0.2)
    worker.join()
    assert seen, "the agent's container was never seen running"
    assert token not in json.dumps(seen)
    [spec] = campaign_folder.planned_runs(campaign_dir)
    folder = campaign_folder.run_folder(campaign_dir, spec)
    assert "token-present" in (folder / "trace.log").read_text()
    leaked = [p for p in campaign_dir.rglob("*") if p.is_file() and token.encode() in p.read_bytes()]
    assert leaked == []


def test_run_command_runs_one_task_and_prints_its_result(engine: Any, data_dir: Path, tree: Path,
                                                         tmp_path: Path) -> None:
    done = cli("run", "eicu-gcs", "--agent", "oracle", "--dir", str(tmp_path / "one"), "--data-dir", str(data_dir),
               "--tasks-dir", str(tree), "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert (result["task"], result["outcome"], result["reward"]) == ("eicu-gcs", "scored", 1.0)


def test_campaign_status_json_counts_outcomes(null_campaign: Path) -> None:
    done = cli("campaign", "status", "--dir", str(null_campaign), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["states"] == {"done": 28} and summary["outcomes"] == {"no_output": 28}


def test_campaign_plan_json_lists_every_run_with_its_key(tree: Path, tmp_path: Path) -> None:
    matrix = write_matrix(tmp_path / "m.toml", '[campaign]\ntasks = ["*"]\ntrials = 2\n[[agents]]\nname = "null"\n')
    done = cli("campaign", "plan", str(matrix), "--dir", str(tmp_path / "c"), "--tasks-dir", str(tree), "--json")
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["runs"]
    assert len(runs) == 56 and len({run["key"] for run in runs}) == 56


def test_doctor_says_the_machine_is_ready(engine: Any, data_dir: Path) -> None:
    done = cli("doctor", "--data-dir", str(data_dir), "--json")
    checks = {c["name"]: c["ok"] for c in json.loads(done.stdout)}
    assert done.returncode == 0 and all(checks.values()), checks
    assert {"docker", "image", "containers", "data mimic-iv", "data eicu", "disk"} <= set(checks)


def test_doctor_fails_and_names_the_fix_for_a_missing_data_directory(engine: Any, tmp_path: Path) -> None:
    done = cli("doctor", "--data-dir", str(tmp_path / "nothing"), "--json")
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    assert done.returncode == 1
    assert not checks["data mimic-iv"]["ok"] and "m4agent quickstart" in checks["data mimic-iv"]["detail"]


def test_a_campaign_refuses_another_data_directory_than_its_first(null_campaign: Path, tmp_path: Path) -> None:
    from m4agent.errors import M4AgentError

    with pytest.raises(M4AgentError, match="runs against the data directory"):
        campaign.run(null_campaign, tmp_path)


def test_ctrl_c_stops_a_campaign_promptly_and_records_interrupted_attempts(engine: Any, data_dir: Path, tree: Path,
                                                                         tmp_path: Path) -> None:
    campaign_dir = shell_campaign(tmp_path, tree, "sleep 300\n", ["eicu-gcs", "eicu-oasis"], "workers = 2")
    found_id = campaign_id(campaign_dir)
    command = [sys.executable, "-m", "m4agent.cli", "campaign", "run", "--dir", str(campaign_dir),
               "--data-dir", str(data_dir), "--no-canary", "--json"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(container.labelled(engine, campaign=found_id, role="agent")) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=60)  # a hang fails here; how fast it stops is benchmarks' business
    assert process.returncode == 130
    assert container.labelled(engine, campaign=found_id) == []
    for spec in campaign_folder.planned_runs(campaign_dir):
        ended = records.attempts(campaign_folder.run_folder(campaign_dir, spec))
        assert [(r.outcome, r.reason) for r in ended] == [(Outcome.INFRA_ERROR, records.INTERRUPTED)]
