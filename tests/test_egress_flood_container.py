"""A hostile agent floods the egress door from inside its container: the attempt is a policy violation,
the harness's threads and every record it leaves stay bounded.

A real campaign of the ``shell`` agent whose script runs ``tests/support/egress_flood.py``
against the forwarder (1,500 connections that send nothing, then four seconds of denied
requests), on the harness's synthetic data directory and the agent image. The harness runs in
this process, so its thread count is this process's.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from support.harness import docker_engine, shell_campaign

from m4agent import campaign_folder
from m4agent.harness import campaign, container, records
from m4agent.harness.egress import MAX_REFUSAL_LINES
from m4agent.registry import TASKS_DIR
from m4agent.reports.view import write_view

pytestmark = [pytest.mark.docker, pytest.mark.slow]

FLOOD_SCRIPT = Path(__file__).parent / "support" / "egress_flood.py"
HARNESS_THREADS = 20  # what an attempt may add to the harness (exec streams, the proxy); a flood adds none


def threads_now() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no Threads line in /proc/self/status")


class PeakThreads:
    """Samples this process's thread count every 20 ms until stopped (its own thread is in the baseline)."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        self.before = threads_now()

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, threads_now())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


@pytest.fixture(scope="module")
def flooded(harness_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    engine = docker_engine()
    folder = tmp_path_factory.mktemp("flood")
    script = ("#!/usr/bin/env bash\n"
              "cat > /tmp/egress_flood.py <<'PY'\n" + FLOOD_SCRIPT.read_text() + "PY\n"
              'proxy="${HTTPS_PROXY#http://}"\n'
              'python3 /tmp/egress_flood.py --tcp "$proxy" idle --connections 1500 --hold 2\n'
              'python3 /tmp/egress_flood.py --tcp "$proxy" denied --seconds 4 --threads 8\n'
              "exit 0\n")
    campaign_dir = shell_campaign(folder, TASKS_DIR, script, ["eicu-gcs"])
    sampler = PeakThreads()
    try:
        campaign.run(campaign_dir, harness_data_dir, run_canary=False)
    finally:
        sampler.stop()
    [spec] = campaign_folder.planned_runs(campaign_dir)
    run = campaign_folder.run_folder(campaign_dir, spec)
    assert container.labelled(engine, campaign=records.read_json(campaign_dir / "campaign.json")["id"]) == []
    return {"run": run, "attempt": records.attempt_folders(run)[-1], "before": sampler.before,
            "peak": sampler.peak}


def test_a_flooding_agent_ends_policy_violation(flooded: dict[str, Any]) -> None:
    result = records.read_json(flooded["run"] / "result.json")
    assert result["outcome"] == "policy_violation" and result["reward"] == 0.0
    trace = (flooded["attempt"] / "trace.log").read_text()
    assert '"mode": "idle"' in trace and '"mode": "denied"' in trace  # both floods ran to their end


def test_a_flooding_agent_leaves_the_harness_threads_bounded(flooded: dict[str, Any]) -> None:
    assert flooded["peak"] - flooded["before"] <= HARNESS_THREADS


def test_a_flooding_agent_leaves_every_record_bounded(flooded: dict[str, Any]) -> None:
    attempt = flooded["attempt"]
    assert (attempt / "egress.jsonl").stat().st_size < (MAX_REFUSAL_LINES + 1) * 400
    assert (attempt / records.ATTEMPT_FILE).stat().st_size < 16 * 1024
    [record] = records.attempts(flooded["run"])
    assert record.violations[0]["event"] == "summary" and record.violations[0]["refused"]["policy"] > 0
    assert write_view(flooded["run"]).stat().st_size < 100 * 1024
