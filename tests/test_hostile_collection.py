"""A hostile agent against collection, blame and the host: real containers, shell agents that sabotage.

Everything in the workspace is the agent's, so whatever it leaves there (a folder, FIFO or link
where the harness expects a file, unreadable files, a tree past the caps, a full disk) must end in
an outcome of the agent's own on the first try, never in a retried ``infra_error`` that keeps the
run from being counted. The host must keep its disk, nothing may write after the agent's exit, and
the container's mount table must name nothing of the host's layout.

One campaign plays every case at once (one task per case, two workers): the shell agent knows its
case by the sha256 of the instruction it was given, which the test computes from the task.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.harness import shell_campaign

from m4agent import campaign_folder
from m4agent.harness import campaign, records
from m4agent.harness.instructions import build_instruction
from m4agent.harness.records import Outcome
from m4agent.registry import TASKS_DIR, all_tasks

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TASK = "eicu-gcs"
HARNESS_FAULTS = {Outcome.INFRA_ERROR.value, Outcome.QUOTA.value}
WORKSPACE_LIMIT = "64m"


@pytest.fixture(scope="module")
def data_dir(harness_data_dir: Path) -> Path:
    return harness_data_dir


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
    "huge_tree": "python3 -c \"[open(f'f{i}', 'w').close() for i in range(60000)]\"",
    "tmp_and_home_filled": "cat /dev/zero > /tmp/fill; cat /dev/zero > $HOME/fill; echo a,b > output.csv",
}


CASES = {
    **SABOTAGE,
    "disk_fill": "df -h /workspace\ndd if=/dev/zero of=fill.bin bs=1M count=1024\nrm -f fill.bin; echo a,b > output.csv",
    "big_file": "head -c 50000000 /dev/urandom > big.bin\necho a,b > output.csv",
    "stored_once": "head -c 3000000 /dev/urandom | base64 > output.csv",
    # the child keeps the agent's stdout open (the exec's stream stays up) and writes after the exit
    "late_child": "echo a,b > output.csv\n( sleep 1; echo late >> output.csv; echo late-trace ) &",
    "mount_table": "cat /proc/self/mountinfo",
    "egress_folder": "touch /run/m4agent-egress/planted && echo WROTE || echo REFUSED",
    "truth_copy": None,  # the truth export byte for byte (the fixture fills it in)
    # the secret it was given, printed as it is and as its tools encode it: never in a record
    "secret_printed": 'echo "$TEST_SECRET"; printf %s "$TEST_SECRET" | base64; echo "$TEST_SECRET" | base64\n'
                      'printf %s "$TEST_SECRET" | od -An -tx1 | tr -d " \\n"; echo; printf %s "$TEST_SECRET" | rev\n'
                      'echo a,b > output.csv',
    "secret_written": 'echo a,b > output.csv; printf %s "$TEST_SECRET" | base64 > notes.txt',
}
SECRET = "m4agent-test-secret-7c1d9e2b44"


class Hostile:
    """The campaign that played every case: each case's task, run folder and result."""

    def __init__(self, campaign_dir: Path, tasks: dict[str, str], free_before: int, free_after: int) -> None:
        self.campaign_dir, self.tasks = campaign_dir, tasks
        self.free_before, self.free_after = free_before, free_after
        self.folders = {spec.task: campaign_folder.run_folder(campaign_dir, spec) for spec in campaign_folder.planned_runs(campaign_dir)}

    def folder(self, case: str) -> Path:
        return self.folders[self.tasks[case]]

    def result(self, case: str) -> dict[str, Any]:
        trace = (self.folder(case) / "trace.log").read_text()
        assert "unknown case" not in trace, f"{case}: the agent did not recognise its case"
        path = self.folder(case) / records.RESULT_FILE
        assert path.exists(), f"{case}: the run was never counted (no result.json)"
        return records.read_json(path)


@pytest.fixture(scope="module")
def hostile(engine: Any, data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Hostile:
    from m4agent.reference_export import export

    folder = tmp_path_factory.mktemp("hostile")
    known = all_tasks(TASKS_DIR)
    names = sorted(known)
    assert len(names) >= len(CASES)
    tasks = dict(zip(sorted(CASES), names, strict=False))
    truth = folder / "truth.csv"
    export(tasks["truth_copy"], data_dir, truth)
    bodies = {**CASES, "truth_copy": f"echo {base64.b64encode(truth.read_bytes()).decode()} | base64 -d > output.csv"}
    lines = ['case $(sha256sum "$1" | cut -c1-64) in']
    for case, task in tasks.items():
        digest = hashlib.sha256(build_instruction(known[task], "no-skill").encode()).hexdigest()
        lines += [f"  {digest})  # {case}", *(f"    {line}" for line in bodies[case].splitlines()), "    ;;"]
    lines += ["  *) echo 'unknown case' >&2; exit 9 ;;", "esac", "exit 0", ""]
    campaign_dir = shell_campaign(folder, TASKS_DIR, "\n".join(lines), sorted(tasks.values()),
                                  f'workers = 2\n[limits]\nworkspace_size = "{WORKSPACE_LIMIT}"')
    free_before = shutil.disk_usage(folder).free
    campaign.run(campaign_dir, data_dir, run_canary=False, secrets={"TEST_SECRET": SECRET})
    return Hostile(campaign_dir, tasks, free_before, shutil.disk_usage(folder).free)


def _kept_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


@pytest.mark.parametrize("sabotage", sorted(SABOTAGE))
def test_sabotaged_collection_ends_in_the_agents_own_outcome_on_the_first_try(hostile: Hostile, sabotage: str) -> None:
    result = hostile.result(sabotage)
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
    for spec in campaign_folder.planned_runs(campaign_dir):
        result = records.read_json(campaign_folder.run_folder(campaign_dir, spec) / records.RESULT_FILE)
        outcomes[spec.condition] = result["outcome"]
    assert set(outcomes) == {"no-skill", "with-skill"}
    assert not set(outcomes.values()) & HARNESS_FAULTS, outcomes
    assert status["runs"] == 2 and status["states"] == {"done": 2}, status


def test_disk_fill_stops_at_the_workspace_limit_and_leaves_the_host_its_space(hostile: Hostile) -> None:
    trace = (hostile.folder("disk_fill") / "trace.log").read_text()
    assert "No space left on device" in trace  # stopped by the kernel at the limit, not scanned afterwards
    assert " 64M " in trace  # df inside shows the workspace's own limit, not the host's disk
    assert _kept_bytes(hostile.folder("disk_fill")) < 8 * 1024 * 1024
    assert abs(hostile.free_after - hostile.free_before) < 256 * 1024 * 1024
    assert hostile.result("disk_fill")["outcome"] not in HARNESS_FAULTS


def test_big_file_left_in_the_workspace_is_not_stored_whole(hostile: Hostile) -> None:
    assert _kept_bytes(hostile.folder("big_file")) < 8 * 1024 * 1024
    assert hostile.result("big_file")["outcome"] not in HARNESS_FAULTS


def test_output_is_stored_once_per_attempt(hostile: Hostile) -> None:
    folder = hostile.folder("stored_once")
    copies = [path for path in folder.rglob("*") if path.is_file() and path.stat().st_size > 3_000_000]
    assert copies and len({(path.stat().st_dev, path.stat().st_ino) for path in copies}) == 1, copies


def test_write_by_a_child_after_the_agents_exit_never_reaches_the_output(hostile: Hostile) -> None:
    [attempt] = records.attempt_folders(hostile.folder("late_child"))
    assert (attempt / "output.csv").read_text() == "a,b\n"


def test_mount_table_names_nothing_of_the_host(hostile: Hostile, data_dir: Path) -> None:
    folder = hostile.folder("mount_table")
    mountinfo = (folder / "trace.log").read_text()
    assert "/data " in mountinfo  # the table was printed
    for secret in (str(data_dir), str(hostile.campaign_dir.parent), records.read_spec(folder).key, "agent.sh"):
        assert secret not in mountinfo, secret


def test_egress_folder_is_not_writable_by_the_agent(hostile: Hostile) -> None:
    assert "REFUSED" in (hostile.folder("egress_folder") / "trace.log").read_text()


def test_output_identical_to_the_truth_is_graded_and_flagged_not_zeroed(hostile: Hostile) -> None:
    result = hostile.result("truth_copy")
    assert result["outcome"] == Outcome.SCORED.value and result["reward"] == 1.0, result
    assert [flag["rule"] for flag in result["flags"]] == ["truth_copy"]


def test_report_lists_the_flagged_run_apart_and_counts_it(hostile: Hostile) -> None:
    from m4agent.reports import report, tables

    built = report.build([hostile.campaign_dir])
    flagged_cases = {"truth_copy", "secret_printed", "secret_written"}
    assert built["validity"]["integrity"]["flagged_for_review"] == len(flagged_cases)
    [flagged] = [table for table in tables.validity_tables(built) if table.name == "flagged"]
    assert sorted(row[1] for row in flagged.rows) == ["secret_value", "secret_value", "truth_copy"]


def test_secret_printed_in_any_spelling_reaches_no_record_and_is_flagged(hostile: Hostile) -> None:
    from m4agent.harness.redact import spellings
    from m4agent.reports.view import write_view

    assert "[redacted]" in (hostile.folder("secret_printed") / "trace.log").read_text()
    page = write_view(hostile.folder("secret_printed"))
    forms = spellings([SECRET])
    for path in [page, *hostile.campaign_dir.rglob("*")]:
        if path.is_file():
            data = path.read_bytes()
            assert not [form for form in forms if form in data], path
    assert "secret_value" in [flag["rule"] for flag in hostile.result("secret_printed")["flags"]]


def test_secret_written_encoded_to_the_workspace_is_a_policy_violation(hostile: Hostile) -> None:
    result = hostile.result("secret_written")
    assert result["outcome"] == Outcome.POLICY_VIOLATION.value and "secret_value" in result["reason"], result
