"""An agent's workspace lies inside the campaign folder: nothing it writes there is ever read as a run.

Two real campaign folders (planned by ``campaign.plan``, each run's attempt recorded with the
harness's record writers and graded by the harness's own ``Grader`` against the grading fixture's
references) sit side by side in one parent folder. In the workspace of one attempt the agent has
left what would pass for records: a ``run.json`` naming another task, an M4Bench ``result.json``
with reward 1.0, that task's reference as ``output.csv``, and a whole campaign (``campaign.json``,
``plan.json`` and a run folder ``runs/<task>/<key>/`` with its ``run.json`` and ``output.csv``).
``m4agent report``, ``m4agent grade --results-root`` and ``m4agent view``, pointed at a campaign, its
``runs/`` folder or the parent, count the harness's runs and nothing of the workspace.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest
from fixtures.grading.fixture import graded_environment
from support.harness import shell_campaign
from typer.testing import CliRunner

from m4agent import campaign_folder
from m4agent.campaign_folder import RunSpec
from m4agent.cli import app
from m4agent.errors import M4AgentError
from m4agent.export.harbor_results import run_table
from m4agent.grading import results_tree
from m4agent.harness import campaign, records
from m4agent.harness.records import AttemptRecord, Outcome
from m4agent.registry import all_tasks
from m4agent.reports import report
from m4agent.reports.run_records import load_table
from m4agent.reports.view import write_view
from m4agent.run_folder import ATTEMPTS_DIR, RESULT_FILE, RUN_FILE, RUNS_DIR, WORKSPACE_DIR

runner = CliRunner()
SPOOFED_TASK = "fx-vaso"
FIRST_TASKS = ["fx-meld", SPOOFED_TASK]  # the campaign whose workspace is hostile
SECOND_TASKS = ["fx-labels"]


def _finish(campaign_dir: Path, data_dir: Path, truth: dict[str, Path]) -> dict[str, Path]:
    """Every planned run ended as the harness ends one (attempt 0001 scored, its output the task's
    reference) and graded by the harness's Grader; each run's attempt folder by task."""
    matrix, tasks, _ = campaign._matrix(campaign_dir)
    attempts = {}
    specs = campaign_folder.planned_runs(campaign_dir)
    for spec in specs:
        attempt = records.new_attempt(campaign_folder.run_folder(campaign_dir, spec))
        workspace = attempt / WORKSPACE_DIR
        workspace.mkdir()
        shutil.copy(truth[spec.task], workspace / "output.csv")
        shutil.copy(truth[spec.task], attempt / "output.csv")
        records.finish_attempt(attempt, AttemptRecord(number=1, outcome=Outcome.SCORED, has_output=True))
        attempts[spec.task] = attempt
    campaign.Grader(campaign_dir, data_dir, tasks, matrix).grade(specs)
    return attempts


def _plant(workspace: Path, tasks_dir: Path, output: Path) -> None:
    """What a hostile agent leaves: a run of another task with a perfect M4Bench result, and a campaign."""
    spec = RunSpec(task=SPOOFED_TASK, task_digest="spoof", condition="no-skill", schema="native", agent="shell",
                   agent_version="spoof", model="spoof", trial=7)
    (workspace / RUN_FILE).write_text(json.dumps({**asdict(spec), "key": spec.key}))
    (workspace / RESULT_FILE).write_text(json.dumps({
        **asdict(spec), "run_id": "spoof", "agent_result": {"returncode": 0},
        "test_results": {"reward": 1.0, "passed": 5, "failed": 0, "errors": 0, "key_precision": 1.0}}))
    shutil.copy(output, workspace / "output.csv")
    (workspace / campaign_folder.CAMPAIGN_FILE).write_text(json.dumps({"id": "spoof", "tasks_dir": str(tasks_dir)}))
    (workspace / campaign_folder.PLAN_FILE).write_text(json.dumps({"runs": {spec.key: asdict(spec)}, "skipped": []}))
    nested = campaign_folder.run_folder(workspace, spec)
    nested.mkdir(parents=True)
    (nested / RUN_FILE).write_text(json.dumps({**asdict(spec), "key": spec.key}))
    shutil.copy(output, nested / "output.csv")  # no result.json: a grader would write one here


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(the parent of the two campaigns, data directory, tasks folder), kept as made: tests copy it."""
    data_dir, tasks, truth = graded_environment(tmp_path_factory.mktemp("discovery_env"))
    tasks_dir = tasks["fx-meld"].path.parent.parent
    parent = tmp_path_factory.mktemp("discovery") / "parent"
    for name, names in (("first", FIRST_TASKS), ("second", SECOND_TASKS)):
        (parent / name).mkdir(parents=True)
        planned = shell_campaign(parent / name, tasks_dir, "true\n", names)
        attempts = _finish(planned, data_dir, truth)
        if name == "first":
            _plant(attempts["fx-meld"] / WORKSPACE_DIR, tasks_dir, truth[SPOOFED_TASK])
    return parent, data_dir, tasks_dir


@pytest.fixture
def parent(built: tuple[Path, Path, Path], tmp_path: Path) -> Path:
    copy = tmp_path / "parent"
    shutil.copytree(built[0], copy, symlinks=True)
    return copy


def _campaign(parent: Path) -> Path:
    return parent / "first" / "campaign"


def _workspace(parent: Path) -> Path:
    [spec] = [s for s in campaign_folder.planned_runs(_campaign(parent)) if s.task == "fx-meld"]
    return campaign_folder.run_folder(_campaign(parent), spec) / ATTEMPTS_DIR / "0001" / WORKSPACE_DIR


def _target(parent: Path, where: str) -> Path:
    return {"campaign": _campaign(parent), "runs": _campaign(parent) / RUNS_DIR, "parent": parent}[where]


def _campaigns(parent: Path, where: str) -> list[Path]:
    """The campaigns a path covers."""
    return [_campaign(parent)] if where != "parent" else [_campaign(parent), parent / "second" / "campaign"]


def _planned_keys(campaigns: list[Path]) -> set[tuple[str, str, str, str, str, int]]:
    return {(s.agent, s.task, s.condition, s.schema, s.model, s.trial) for c in campaigns
            for s in campaign_folder.planned_runs(c)}


def _workspace_files(parent: Path) -> dict[str, bytes]:
    """Every file under the hostile workspace, with its bytes."""
    workspace = _workspace(parent)
    return {p.relative_to(workspace).as_posix(): p.read_bytes() for p in sorted(workspace.rglob("*")) if p.is_file()}


WHERE = ["campaign", "runs", "parent"]


@pytest.mark.parametrize("where", WHERE)
def test_report_counts_only_the_planned_runs_of_the_campaigns_it_is_pointed_at(parent: Path, where: str) -> None:
    built = report.build([_target(parent, where)])
    expected = _planned_keys(_campaigns(parent, where))
    found = {(r["agent"], r["task"], r["condition"], r["schema"], r["model"], r["trial"]) for r in built["runs"]}
    assert found == expected
    assert [r["reward"] for r in built["runs"]] == [1.0] * len(expected)  # the harness's grades
    assert {s["kind"] for s in built["sources"]} == {"m4agent-campaign"}
    completeness = built["validity"]["completeness"]
    assert (completeness["expected"], completeness["observed"], completeness["unexpected"]) == (
        len(expected), len(expected), [])


def test_report_on_a_campaign_planted_in_a_workspace_finds_no_run(parent: Path) -> None:
    with pytest.raises(M4AgentError, match="holds no run"):
        report.build([_workspace(parent)])


def _grade(parent: Path, built: tuple[Path, Path, Path], root: Path, *extra: str):
    _, data_dir, tasks_dir = built
    return runner.invoke(app, ["grade", "--results-root", str(root), "--data-dir", str(data_dir),
                               "--tasks-dir", str(tasks_dir), *extra])


def _harness_results(parent: Path) -> dict[str, bytes]:
    """Every result.json the harness wrote in the campaigns under ``parent``, with its bytes."""
    return {str(campaign_folder.run_folder(c, spec)): (campaign_folder.run_folder(c, spec) / RESULT_FILE).read_bytes()
            for c in _campaigns(parent, "parent") for spec in campaign_folder.planned_runs(c)}


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("where", WHERE)
def test_grade_results_root_refuses_a_campaign_and_keeps_the_harness_results(
        parent: Path, built: tuple[Path, Path, Path], where: str, force: bool) -> None:
    # regraded as a plain output, a policy violation's copied output.csv would score again
    before, results_before = _workspace_files(parent), _harness_results(parent)
    done = _grade(parent, built, _target(parent, where), *(["--force"] if force else []))
    assert done.exit_code == 1 and "the harness grades them" in done.output, done.output
    assert _harness_results(parent) == results_before
    assert _workspace_files(parent) == before


def test_grade_results_root_on_a_workspace_finds_no_run_folder(parent: Path, built: tuple[Path, Path, Path]) -> None:
    before = _workspace_files(parent)
    done = _grade(parent, built, _workspace(parent), "--force")
    assert done.exit_code == 1 and "no run folder under" in done.output
    assert _workspace_files(parent) == before


def test_view_refuses_a_run_folder_planted_in_a_workspace(parent: Path) -> None:
    with pytest.raises(M4AgentError, match="neither a run folder"):
        write_view(_workspace(parent))
    assert "view.html" not in _workspace_files(parent)


def test_view_refuses_a_campaign_planted_in_a_workspace(parent: Path) -> None:
    nested = _workspace(parent) / RUNS_DIR / SPOOFED_TASK
    [planted_run] = list(nested.iterdir())
    for target in (_workspace(parent), planted_run):
        with pytest.raises(M4AgentError, match="neither a run folder"):
            write_view(target)
    assert not (_workspace(parent) / "view").exists()


def test_a_link_to_a_workspace_is_read_where_it_lies(parent: Path, built: tuple[Path, Path, Path],
                                                     tmp_path: Path) -> None:
    link = tmp_path / "looks-plain"
    link.symlink_to(_workspace(parent), target_is_directory=True)
    before = _workspace_files(parent)
    with pytest.raises(M4AgentError, match="holds no run"):
        report.build([link])
    done = _grade(parent, built, link, "--force")
    assert done.exit_code == 1 and "no run folder under" in done.output
    assert _workspace_files(parent) == before


def test_a_plain_results_tree_keeps_its_runs_at_any_depth_but_not_in_layout_folders_or_links(
        parent: Path, built: tuple[Path, Path, Path], tmp_path: Path) -> None:
    root = tmp_path / "results"
    for name in ("run-001", "deep/er/run-002", "run-001/attempts/0001", "run-001/attempts/0001/workspace",
                 "run-003", "run-003/workspace", "workspace"):
        (root / name).mkdir(parents=True)
        (root / name / RUN_FILE).write_text(json.dumps({"task": "fx-meld"}))
    (root / "linked").symlink_to(_workspace(parent), target_is_directory=True)
    found = results_tree.discover_runs(root, all_tasks(built[2]))
    assert sorted(b.folder.relative_to(root).as_posix() for b in found) == ["deep/er/run-002", "run-001",
                                                                             "run-003"]


def test_a_campaign_in_a_plain_run_folder_is_not_trusted(built: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """An M4Bench results tree keeps whatever its agents left: a run folder with a campaign's files is
    still a run folder, read as before, and the plan it holds is never read."""
    run = tmp_path / "results" / "run-x"
    run.mkdir(parents=True)
    (tmp_path / "output.csv").write_text("stay_id,norepinephrine_equivalent_dose\n")
    _plant(run, built[2], tmp_path / "output.csv")
    loaded = report.build([tmp_path / "results"])
    assert [(r["task"], r["model"], r["trial"]) for r in loaded["runs"]] == [(SPOOFED_TASK, "spoof", 7)]
    assert [s["kind"] for s in loaded["sources"]] == ["m4bench-results"]


def _harbor_trial(folder: Path, name: str, reward: float) -> None:
    """A trial folder as Harbor writes it, with our verifier's result beside it."""
    (folder / "verifier").mkdir(parents=True)
    (folder / RESULT_FILE).write_text(json.dumps({
        "task_name": "m4agent/fx-meld__no-skill__native", "trial_name": name, "started_at": "2026-12-01T10:00:00",
        "finished_at": "2026-12-01T10:00:59", "agent_info": {"name": "oracle", "model_info": None},
        "exception_info": None}))
    (folder / "verifier" / RESULT_FILE).write_text(json.dumps({
        "reward": reward, "checks": [{"name": "test_output_exists", "passed": True}]}))


def test_harbor_trial_records_left_in_a_trials_mounted_folders_are_not_trials(tmp_path: Path) -> None:
    """Harbor mounts a trial's agent/, verifier/ and artifacts/ into the environment: a trial planted
    there (with its own perfect verifier result) is never read back as a trial."""
    job = tmp_path / "job"
    _harbor_trial(job / "t1", "t1", 0.25)
    for mounted in ("agent", "artifacts", "verifier"):
        _harbor_trial(job / "t1" / mounted / "planted", f"planted-{mounted}", 1.0)
    runs = load_table(run_table(job, tmp_path / "runs.csv"))
    assert [(r.run_id, r.reward) for r in runs] == [("t1", 0.25)]
