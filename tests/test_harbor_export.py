"""`m4agent.export.harbor`: our tasks as Harbor task folders (issue 29).

Built on small synthetic data (both datasets, two references): the export of two tasks under
two conditions. What each part must do is checked by running it the way Harbor would, on the
host: the environment's database made by ``setup_database.py`` from the exported plan and data;
the verifier's grading (``m4agent grade`` against the exported reference-only data directory)
giving the oracle's solution reward 1.0 and an empty output 0.0. Whether Harbor itself accepts
the folders is checked with Harbor's own task model when ``$HARBOR_PYTHON`` names a Python with
``harbor`` installed (Harbor needs Python 3.12 or newer: ``python3.12 -m venv V && V/bin/pip install
harbor``); without it that test is skipped with this reason. Building the images and running a
trial with Harbor's Docker environment is not done here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from m4agent import workspaces
from m4agent.data.synth import synthesize
from m4agent.dbt.runner import invoke
from m4agent.errors import M4AgentError
from m4agent.export.harbor import HarborTask, export_harbor, read_exported, task_dir_name
from m4agent.harness.instructions import build_instruction
from m4agent.registry import all_tasks

pytestmark = pytest.mark.slow

TASKS = ("mimic-sofa-24h", "eicu-gcs")
CONDITIONS = ("no-skill", "with-skill")
IMAGE = "m4agent-agent:test"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("harbor_data")
    for dataset in ("mimic-iv", "eicu"):
        synthesize(dataset, root, patients=30, seed=7)
    models = " ".join(f"+{all_tasks()[name].reference_model}" for name in TASKS)
    invoke(root, ["build", "--select", models, "--exclude", "resource_type:test", "resource_type:unit_test"])
    workspaces.prepare(root, workspaces.NATIVE)
    return root


@pytest.fixture(scope="module")
def exported(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[HarborTask]:
    out = tmp_path_factory.mktemp("harbor_export")
    return export_harbor(out, data_dir, IMAGE, task_names=TASKS, conditions=CONDITIONS)


def _grade(folder: Path, output: Path | None, scratch: Path) -> dict:
    """The verifier's grading as tests/test.sh runs it, with this environment's m4agent."""
    data = scratch / "data"
    shutil.copytree(folder / "tests" / "truth", data)
    run = scratch / "run"
    run.mkdir()
    if output is not None:
        shutil.copyfile(output, run / "output.csv")
    (run / "run.json").write_text(json.dumps({"task": read_exported(folder).task}))
    done = subprocess.run([sys.executable, "-m", "m4agent.cli", "grade", "--results-root", str(run),
                           "--data-dir", str(data), "--no-fail"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((run / "result.json").read_text())


def test_one_folder_per_task_condition_and_schema(exported: list[HarborTask]) -> None:
    expected = {task_dir_name(t, c, "native") for t in TASKS for c in CONDITIONS}
    assert {item.path.name for item in exported} == expected


def test_each_folder_has_harbors_layout(exported: list[HarborTask]) -> None:
    for item in exported:
        for part in ("instruction.md", "task.toml", "environment/Dockerfile", "solution/solve.sh",
                     "tests/test.sh"):
            assert (item.path / part).is_file(), f"{item.path.name} lacks {part}"
        assert os.access(item.path / "tests" / "test.sh", os.X_OK)
        assert os.access(item.path / "solution" / "solve.sh", os.X_OK)


def test_metadata_names_the_combination_for_the_way_back(exported: list[HarborTask]) -> None:
    for item in exported:
        assert read_exported(item.path) == item


def test_instruction_is_the_harness_instruction_for_the_condition(exported: list[HarborTask]) -> None:
    tasks = all_tasks()
    for item in exported:
        expected = build_instruction(tasks[item.task], item.condition)
        assert (item.path / "instruction.md").read_text() == expected


def test_environment_database_reads_the_exported_data(exported: list[HarborTask], tmp_path: Path) -> None:
    # what the Dockerfile's RUN does at image build time, with the exported files
    for item in exported:
        env = item.path / "environment"
        database = tmp_path / f"{item.path.name}.duckdb"
        subprocess.run([sys.executable, str(env / "setup_database.py"), str(env / "plan.json"),
                        str(env / "data"), str(database)], check=True)
        plan = json.loads((env / "plan.json").read_text())
        con = duckdb.connect(str(database), read_only=True)
        try:
            for relation in plan["relations"]:
                con.execute(f'SELECT COUNT(*) FROM "{relation["schema"]}"."{relation["name"]}"').fetchone()
        finally:
            con.close()
        assert plan["relations"], f"{item.path.name}: an empty plan"


def test_with_skill_places_skills_and_no_skill_none(exported: list[HarborTask]) -> None:
    for item in exported:
        skills = list((item.path / "environment" / "skills").iterdir())
        assert bool(skills) == (item.condition == "with-skill"), item.path.name


def test_verifier_gives_the_oracle_solution_reward_one(exported: list[HarborTask], tmp_path: Path) -> None:
    for item in exported[:: len(CONDITIONS)]:  # one condition per task: the truth is the same
        result = _grade(item.path, item.path / "solution" / "reference.csv", tmp_path / item.path.name)
        assert result["reward"] == 1.0 and result["strict_pass"], result


def test_verifier_gives_a_missing_output_reward_zero(exported: list[HarborTask], tmp_path: Path) -> None:
    result = _grade(exported[0].path, None, tmp_path)
    assert result["reward"] == 0.0 and not result["strict_pass"]


def test_export_refuses_an_unknown_task(data_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="unknown task"):
        export_harbor(tmp_path, data_dir, IMAGE, task_names=["no-such-task"])


def test_harbors_task_model_accepts_every_folder(exported: list[HarborTask]) -> None:
    harbor_python = os.environ.get("HARBOR_PYTHON")
    if not harbor_python or not Path(harbor_python).exists():
        pytest.skip("$HARBOR_PYTHON does not name a Python with harbor installed (Harbor needs 3.12+)")
    check = (
        "import sys, tomllib\n"
        "from pathlib import Path\n"
        "from harbor.models.task.task import Task\n"
        "from harbor.models.task.config import TaskConfig\n"
        "for d in sys.argv[1:]:\n"
        "    task = Task(d)\n"
        "    raw = tomllib.loads((Path(d) / 'task.toml').read_text())\n"
        "    kept = TaskConfig.model_validate(raw).model_dump(mode='json', exclude_unset=True)\n"
        "    for section, values in raw.items():\n"
        "        if section != 'metadata':\n"
        "            lost = set(values) - set(kept.get(section, {}))\n"
        "            assert not lost, f'{d}: Harbor ignores {section}.{sorted(lost)}'\n"
        "    assert task.paths.discovered_test_path is not None, d\n"
        "    assert task.config.agent.network_mode.value == 'no-network', d\n"
    )
    done = subprocess.run([harbor_python, "-c", check, *(str(item.path) for item in exported)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


def _harbor_trial(job: Path, name: str, task_name: str, started: str, verifier: dict | None,
                  exception: bool = False) -> None:
    """A trial folder as Harbor 0.26 writes it (the fields of its TrialResult that the table reads)."""
    trial = job / name
    trial.mkdir(parents=True)
    (trial / "result.json").write_text(json.dumps({
        "task_name": task_name, "trial_name": name, "started_at": started, "finished_at": started[:-2] + "59",
        "agent_info": {"name": "oracle", "version": "1", "model_info": None},
        "exception_info": {"exception_type": "AgentTimeoutError"} if exception else None}))
    if verifier is not None:
        (trial / "verifier").mkdir()
        (trial / "verifier" / "result.json").write_text(json.dumps(verifier))


def test_harbor_trials_come_back_as_a_run_table_report_reads(exported: list[HarborTask], tmp_path: Path) -> None:
    from m4agent.export.harbor_results import run_table
    from m4agent.reports.run_records import load_table

    item = exported[0]
    graded = _grade(item.path, item.path / "solution" / "reference.csv", tmp_path / "graded")
    job = tmp_path / "job"
    name = f"m4agent/{item.path.name}"
    _harbor_trial(job, "t2", name, "2026-12-01T10:05:00", graded)
    _harbor_trial(job, "t1", name, "2026-12-01T10:00:00", None, exception=True)
    runs = sorted(load_table(run_table(job, tmp_path / "runs.csv")), key=lambda r: r.trial)
    assert [(r.task, r.condition, r.schema, r.trial, r.run_id) for r in runs] == [
        (item.task, item.condition, item.schema, 1, "t1"), (item.task, item.condition, item.schema, 2, "t2")]
    assert (runs[0].reward, runs[0].strict_pass) == (0.0, False)
    assert (runs[1].reward, runs[1].strict_pass, runs[1].outcome) == (1.0, True, "scored")
    assert runs[1].match_rates == graded["match_rates"]


# An agent that answers wrongly and plants what an earlier verifier read: a graded run where the
# verifier used to grade (skipped as "already graded"), and Harbor's reward files.
SABOTEUR = ("echo stay_id > /workspace/output.csv && mkdir -p /tmp/m4agent-run /logs/verifier "
            "&& echo '{\"reward\": 1.0}' > /tmp/m4agent-run/result.json && echo 1.0 > /logs/verifier/reward.txt "
            "&& echo '{\"reward\": 1.0}' > /logs/verifier/reward.json")


@pytest.mark.docker
@pytest.mark.parametrize(("agent", "reward"), [("sh /solution/solve.sh", "1.0"), (SABOTEUR, "0.0")],
                         ids=["oracle", "saboteur"])
def test_exported_task_in_its_image_gives_the_graded_reward(data_dir: Path, tmp_path: Path, agent: str,
                                                            reward: str) -> None:
    """The exported environment built on the agent image, an agent run in it, then its verifier's grading:
    the oracle's solve.sh scores 1.0; a wrong answer scores 0 whatever the agent planted for the verifier.

    Harbor itself is not used (its local environment needs the `docker compose` plugin) and the
    verifier's one networked step, installing m4agent's dependencies, is replaced by mounting
    this Python's own (the image's Python is 3.11 too): everything after it runs as exported."""
    import sysconfig

    from docker.client import DockerClient
    from docker.errors import DockerException

    from m4agent.harness.image import ensure_image

    if sys.version_info[:2] != (3, 11):
        pytest.skip("this Python's packages stand in for the verifier's install: they must be 3.11's, as the image's")
    try:
        client = DockerClient.from_env()
        client.ping()
    except DockerException as error:
        if os.environ.get("CI"):
            pytest.fail(f"no Docker engine answers ({error}); scripts/test starts one")
        pytest.skip(f"no Docker engine answers ({error}); run scripts/test")
    [item] = export_harbor(tmp_path / "harbor", data_dir, ensure_image(client), task_names=["mimic-sofa-24h"])
    test_sh = (item.path / "tests" / "test.sh").read_text()
    # the installed packages are this environment's, bound where the script's own install would put them
    after_install = 'work=$(mktemp -d); lib=/tmp/m4agent-lib\n' + test_sh[test_sh.index("cp -r /tests/truth"):]
    (tmp_path / "verify.sh").write_text(after_install)
    tag = f"m4agent-harbor-test:{os.getpid()}"
    client.images.build(path=str(item.path / "environment"), tag=tag, network_mode="none", rm=True)
    try:
        out = client.containers.run(
            tag, ["sh", "-euc", f"{agent} && mkdir -p /logs/verifier && sh -eu /verify.sh "
                  "&& cat /logs/verifier/reward.txt && ls /logs/verifier"],
            user="root", network_mode="none", remove=True,
            volumes={str(item.path / "tests"): {"bind": "/tests", "mode": "ro"},
                     str(item.path / "solution"): {"bind": "/solution", "mode": "ro"},
                     sysconfig.get_paths()["purelib"]: {"bind": "/tmp/m4agent-lib", "mode": "ro"},
                     str(tmp_path / "verify.sh"): {"bind": "/verify.sh", "mode": "ro"}})
    finally:
        client.images.remove(tag, force=True)
        client.close()
    lines = out.decode().strip().splitlines()
    assert lines[0] == reward
    assert "reward.json" not in lines[1:]
