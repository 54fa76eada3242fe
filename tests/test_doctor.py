"""`m4agent doctor` on a Docker host where a campaign is running: its containers are live, not left
behind, and `--reap` removes only the containers of a campaign whose harness died.

Real containers: a shell agent that sleeps, run by a real `campaign run` process, and a leftover made
as a dead harness leaves one (the labels of a campaign folder nobody holds).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.harness import campaign_id, cli, docker_engine, shell_campaign

from m4agent.harness import container
from m4agent.harness.image import image_tag
from m4agent.registry import TASKS_DIR

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture
def live_campaign(harness_data_dir: Path, tmp_path: Path) -> Any:
    """A campaign whose harness is running, with its agent's container up; stopped (Ctrl-C) afterwards."""
    engine = docker_engine()
    (tmp_path / "live").mkdir()
    folder = shell_campaign(tmp_path / "live", TASKS_DIR, "sleep 300\n", ["eicu-gcs"])
    found_id = campaign_id(folder)
    process = subprocess.Popen([sys.executable, "-m", "m4agent.cli", "campaign", "run", "--dir", str(folder),
                                "--data-dir", str(harness_data_dir), "--no-canary", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while not container.labelled(engine, campaign=found_id, role="agent") and time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        yield engine, found_id
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=120)
        container.reap(engine, campaign=found_id)


def _left_behind(engine: Any, folder: Path) -> str:
    """A container as a killed harness leaves it: a campaign's labels, a folder whose lock nobody holds."""
    folder.mkdir(parents=True)
    name = f"m4agent-test-leftover-{folder.parent.name[-12:]}"
    engine.containers.create(image_tag(), command=["sleep", "600"], name=name, network_mode="none",
                             labels=container.campaign_labels("deadbeef" * 4, folder, "agent"))
    return name


def _doctor(data_dir: Path, *args: str) -> dict[str, Any]:
    done = cli("doctor", "--data-dir", str(data_dir), "--json", *args)
    return {check["name"]: check for check in json.loads(done.stdout)}


def test_a_running_campaigns_containers_are_live_not_left_behind(live_campaign: Any, harness_data_dir: Path) -> None:
    engine, found_id = live_campaign
    assert container.labelled(engine, campaign=found_id, role="agent"), "the agent's container never started"
    check = _doctor(harness_data_dir)["containers"]
    assert check["ok"] and "running for a live campaign" in check["detail"], check
    assert "left behind" not in check["detail"]


def test_reap_leaves_a_running_campaign_alone_and_removes_a_dead_ones(live_campaign: Any, harness_data_dir: Path,
                                                                      tmp_path: Path) -> None:
    engine, found_id = live_campaign
    leftover = _left_behind(engine, tmp_path / "dead" / "campaign")
    try:
        check = _doctor(harness_data_dir, "--reap")["containers"]
        assert container.labelled(engine, campaign=found_id, role="agent"), "reap removed a live campaign's container"
        assert not engine.containers.list(all=True, filters={"name": f"^/{leftover}$"}), check
        assert "removed 1 left behind" in check["detail"], check
    finally:
        container.remove(engine, leftover)
