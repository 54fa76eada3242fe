"""A hostile agent against collection, blame and the host: real containers, shell agents that sabotage.

Everything in the workspace is the agent's, so whatever it leaves there (a folder, FIFO or link
where the harness expects a file, unreadable files, a tree past the caps, a full disk) must end in
an outcome of the agent's own on the first try, never in a retried ``infra_error`` that keeps the
run from being counted. The host must keep its disk, nothing may write after the agent's exit, and
the container's mount table must name nothing of the host's layout.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.harness import docker_engine, shell_campaign

from m4agent.harness import campaign, records
from m4agent.harness.records import Outcome
from m4agent.registry import TASKS_DIR

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TASK = "eicu-gcs"
HARNESS_FAULTS = {Outcome.INFRA_ERROR.value, Outcome.QUOTA.value}


@pytest.fixture(scope="module")
def engine() -> Any:
    return docker_engine()


@pytest.fixture(scope="module")
def data_dir(harness_data_dir: Path) -> Path:
    return harness_data_dir


def _run(tmp_path: Path, data_dir: Path, body: str, settings: str = "") -> tuple[Path, dict[str, Any]]:
    """Plan and run one shell-agent run of ``body`` on TASK; its folder and result."""
    campaign_dir = shell_campaign(tmp_path, TASKS_DIR, body, [TASK], settings)
    campaign.run(campaign_dir, data_dir, run_canary=False)
    [spec] = campaign.planned_runs(campaign_dir)
    folder = records.run_folder(campaign_dir, spec)
    assert (folder / records.RESULT_FILE).exists(), "the run was never counted (no result.json)"
    return folder, records.read_json(folder / records.RESULT_FILE)


SABOTAGE = {
    "database_replaced_by_a_folder": "rm -f database.duckdb; mkdir -p database.duckdb/run; echo x > database.duckdb/f",
    "database_replaced_by_a_fifo": "rm -f database.duckdb; mkfifo database.duckdb",
    "database_replaced_by_a_link": "rm -f database.duckdb; ln -s /etc/passwd database.duckdb",
    "wal_as_a_folder": "mkdir database.duckdb.wal",
    "output_as_a_folder": "mkdir output.csv",
    "output_as_a_fifo": "mkfifo output.csv",
    "output_as_a_link": "ln -s /etc/passwd output.csv",
    "output_unreadable": "echo a,b > output.csv; chmod 000 output.csv",
    "workspace_unreadable": "echo a,b > output.csv; chmod 000 /workspace",
    "folder_unreadable": "mkdir -p deep/er; echo x > deep/er/f; chmod 000 deep",
    "huge_tree": "python3 -c \"import os\nfor i in range(60000):\n    open(f'f{i}', 'w').close()\"",
    "tmp_and_home_filled": "cat /dev/zero > /tmp/fill; cat /dev/zero > $HOME/fill; echo a,b > output.csv",
}


@pytest.mark.parametrize("sabotage", sorted(SABOTAGE))
def test_sabotaged_collection_ends_in_the_agents_own_outcome_on_the_first_try(
        engine: Any, data_dir: Path, tmp_path: Path, sabotage: str) -> None:
    folder, result = _run(tmp_path, data_dir, SABOTAGE[sabotage] + "\nexit 0\n")
    assert result["outcome"] not in HARNESS_FAULTS, result
    assert result["attempts"] == 1, "the sabotage was retried as the harness's fault"


def test_selective_saboteur_cannot_drop_a_condition_from_the_counted_runs(
        engine: Any, data_dir: Path, tmp_path: Path) -> None:
    # sabotages only where no skill was given: before, those runs ended `exhausted` and were never counted
    body = ('if [ -z "$(ls -A skills 2>/dev/null)" ]; then rm -f database.duckdb; mkdir database.duckdb; exit 0; fi\n'
            'echo done\n')
    campaign_dir = shell_campaign(tmp_path, TASKS_DIR, body, [TASK], 'conditions = ["no-skill", "with-skill"]')
    campaign.run(campaign_dir, data_dir, run_canary=False)
    status = campaign.status(campaign_dir)
    outcomes = {}
    for spec in campaign.planned_runs(campaign_dir):
        result = records.read_json(records.run_folder(campaign_dir, spec) / records.RESULT_FILE)
        outcomes[spec.condition] = result["outcome"]
    assert set(outcomes) == {"no-skill", "with-skill"}
    assert not set(outcomes.values()) & HARNESS_FAULTS, outcomes
    assert status["runs"] == 2 and status["states"] == {"done": 2}, status


def test_disk_fill_stops_at_the_workspace_limit_and_leaves_the_host_its_space(
        engine: Any, data_dir: Path, tmp_path: Path) -> None:
    free_before = shutil.disk_usage(tmp_path).free
    folder, result = _run(tmp_path, data_dir,
                          "df -h /workspace\ndd if=/dev/zero of=fill.bin bs=1M count=1024\n"
                          "rm -f fill.bin; echo a,b > output.csv\n", '[limits]\nworkspace_size = "64m"')
    trace = (folder / "trace.log").read_text()
    assert "No space left on device" in trace  # stopped by the kernel at the limit, not scanned afterwards
    assert " 64M " in trace  # df inside shows the workspace's own limit, not the host's disk
    kept = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    assert kept < 8 * 1024 * 1024
    assert abs(shutil.disk_usage(tmp_path).free - free_before) < 256 * 1024 * 1024
    assert result["outcome"] not in HARNESS_FAULTS


def test_big_file_left_in_the_workspace_is_not_stored_whole(engine: Any, data_dir: Path, tmp_path: Path) -> None:
    folder, result = _run(tmp_path, data_dir, "head -c 50000000 /dev/urandom > big.bin\necho a,b > output.csv\n")
    kept = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    assert kept < 8 * 1024 * 1024
    assert result["outcome"] not in HARNESS_FAULTS


def test_output_is_stored_once_per_attempt(engine: Any, data_dir: Path, tmp_path: Path) -> None:
    folder, _ = _run(tmp_path, data_dir, "head -c 3000000 /dev/urandom | base64 > output.csv\n")
    [attempt] = records.attempt_folders(folder)
    copies = [path for path in folder.rglob("*") if path.is_file() and path.stat().st_size > 3_000_000]
    assert len({(path.stat().st_dev, path.stat().st_ino) for path in copies}) == 1, copies


def test_write_by_a_child_after_the_agents_exit_never_reaches_the_output(
        engine: Any, data_dir: Path, tmp_path: Path) -> None:
    # the child keeps the agent's stdout open (the exec's stream stays up) and writes after the exit
    body = "echo a,b > output.csv\n( sleep 1; echo late >> output.csv; echo late-trace ) &\nexit 0\n"
    folder, _ = _run(tmp_path, data_dir, body)
    [attempt] = records.attempt_folders(folder)
    assert (attempt / "output.csv").read_text() == "a,b\n"


def test_mount_table_names_nothing_of_the_host(engine: Any, data_dir: Path, tmp_path: Path) -> None:
    folder, _ = _run(tmp_path, data_dir, "cat /proc/self/mountinfo\n")
    mountinfo = (folder / "trace.log").read_text()
    spec = records.read_spec(folder)
    assert "/data " in mountinfo  # the table was printed
    for secret in (str(data_dir), str(tmp_path), spec.key, "agent.sh"):
        assert secret not in mountinfo, secret


def test_egress_folder_is_not_writable_by_the_agent(engine: Any, data_dir: Path, tmp_path: Path) -> None:
    folder, _ = _run(tmp_path, data_dir, "touch /run/m4agent-egress/planted && echo WROTE || echo REFUSED\n")
    assert "REFUSED" in (folder / "trace.log").read_text()


@pytest.fixture(scope="module")
def truth_copy(engine: Any, data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A run whose output is the truth export byte for byte: what an honest agent writes when it runs the
    skill's SQL (with-skill-rawsql) and sorts by key. Its campaign folder and result."""
    from m4agent.reference_export import export

    folder = tmp_path_factory.mktemp("truth_copy")
    truth = folder / "truth.csv"
    export(TASK, data_dir, truth)
    encoded = base64.b64encode(truth.read_bytes()).decode()
    run_folder, result = _run(folder, data_dir, f"echo {encoded} | base64 -d > output.csv\n")
    return folder / "campaign", result


def test_output_identical_to_the_truth_is_graded_and_flagged_not_zeroed(truth_copy: tuple[Path, dict]) -> None:
    _, result = truth_copy
    assert result["outcome"] == Outcome.SCORED.value and result["reward"] == 1.0, result
    assert [flag["rule"] for flag in result["flags"]] == ["truth_copy"]


def test_report_lists_the_flagged_run_apart_and_counts_it(truth_copy: tuple[Path, dict]) -> None:
    from m4agent.reports import report, tables

    campaign_dir, _ = truth_copy
    built = report.build([campaign_dir])
    assert built["validity"]["integrity"]["flagged_for_review"] == 1
    [flagged] = [table for table in tables.validity_tables(built) if table.name == "flagged"]
    assert [row[1] for row in flagged.rows] == ["truth_copy"]
