"""Our tasks as a Harbor dataset: one Harbor task folder per (task, condition, schema variant).

Harbor (``harbor`` on PyPI) runs agent trials on local Docker and on cloud sandboxes; a task is
a folder of ``instruction.md``, ``task.toml``, ``environment/`` (what the agent's container is
built from), ``solution/solve.sh`` (its oracle) and ``tests/test.sh`` (the verifier, which writes
``/logs/verifier/reward.txt``). Each exported task holds:

- the instruction m4agent's harness gives for that condition and variant;
- an environment built FROM m4agent's agent image, with the Parquet files of exactly the
  relations the task may see under ``/data``, the task's database made at image build time by the
  harness's own ``setup_database.py`` (so its views name the container's paths), and the
  condition's skills under ``/workspace/skills``;
- the oracle: the reference export, copied to ``/workspace/output.csv`` by ``solve.sh``;
- a verifier that grades ``/workspace/output.csv`` with m4agent's own grading (``m4agent grade``,
  installed in the container at verification time from a copy of this project under ``/tests``,
  never visible to the agent) against a data directory holding only the reference table, and
  writes the reward and m4agent's full result.

The agent runs without network (``no-network``); the verifier needs the package index to install
m4agent's dependencies (``public``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4agent import layout, workspaces
from m4agent.errors import M4AgentError
from m4agent.harness.conditions import get_condition, place_skills
from m4agent.harness.instructions import build_instruction
from m4agent.paths import PROJECT_ROOT, database_path
from m4agent.reference_export import export as export_reference
from m4agent.reference_export import find_relation
from m4agent.registry import Task, all_tasks

SETUP_SCRIPT = Path(workspaces.__file__).parent / "setup_database.py"
# What the verifier installs m4agent from: the package and the dbt project grading runs.
PROJECT_FILES = ("pyproject.toml", "README.md", "dbt_project.yml", "profiles.yml", "m4agent", "models",
                 "macros", "seeds")
AGENT_TIMEOUT_SEC = 1800.0  # M4Bench's runs: up to 30 minutes
VERIFIER_TIMEOUT_SEC = 900.0


@dataclass(frozen=True)
class HarborTask:
    """One exported task folder and what it was made from."""

    path: Path
    task: str
    condition: str
    schema: str


def task_dir_name(task: str, condition: str, schema: str) -> str:
    """``<task>__<condition>__<schema>``: unique per combination, a valid Harbor task name."""
    return f"{task}__{condition}__{schema}"


def export_harbor(out: Path, data_dir: Path, image: str, task_names: Sequence[str] | None = None,
                  conditions: Sequence[str] = ("no-skill",), schemas: Sequence[str] = ("native",),
                  ) -> list[HarborTask]:
    """Write one Harbor task per (task, condition, schema) under ``out``; return them in order.

    ``image`` is the agent image the environments start FROM (``m4agent-agent:<tag>`` built by
    ``scripts/build_image.sh``; for a cloud sandbox, that image pushed to a registry it can pull).
    The data directory must hold the built references and the prepared workspaces of ``schemas``
    (``m4agent reference build``; a campaign prepares the workspaces, as does ``workspaces.prepare``).
    """
    tasks = all_tasks()
    names = list(task_names) if task_names else sorted(tasks)
    unknown = [name for name in names if name not in tasks]
    if unknown:
        raise M4AgentError(f"unknown task(s) {', '.join(unknown)}; `m4agent tasks list` names them")
    for condition in conditions:
        get_condition(condition)  # raises, naming the conditions, on an unknown one
    for schema in schemas:
        workspaces.store.check_variant(schema)
    out.mkdir(parents=True, exist_ok=True)
    project_copy = _project_copy(out / ".m4agent-project")
    exported = []
    for name in names:
        task = tasks[name]
        for schema in schemas:
            for condition in conditions:
                folder = out / task_dir_name(name, condition, schema)
                _write_task(folder, task, tasks, condition, schema, data_dir, image, project_copy)
                exported.append(HarborTask(folder, name, condition, schema))
    shutil.rmtree(project_copy)
    return exported


def _project_copy(target: Path) -> Path:
    """The files m4agent is installed from in the verifier, as the repository holds them in git."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(PROJECT_ROOT), "archive", "HEAD", "--", *PROJECT_FILES],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        raise M4AgentError(f"cannot archive the m4agent project at {PROJECT_ROOT} for the verifier "
                           f"({archive.stderr.decode(errors='replace').strip()}); export from a git checkout")
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def _write_task(folder: Path, task: Task, tasks: dict[str, Task], condition: str, schema: str,
                data_dir: Path, image: str, project_copy: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    rewrite = None
    if schema != workspaces.NATIVE:
        def rewrite(text: str) -> str:
            return workspaces.rewrite_instruction(text, task, schema, data_dir)
    (folder / "instruction.md").write_text(build_instruction(task, condition, rewrite=rewrite))
    (folder / "task.toml").write_text(task_toml(task, condition, schema))
    _write_environment(folder / "environment", task, tasks, condition, schema, data_dir, image)
    _write_solution(folder / "solution", task, data_dir)
    _write_tests(folder / "tests", task, data_dir, project_copy)


def task_toml(task: Task, condition: str, schema: str) -> str:
    """Harbor's task.toml for one combination (metadata says which, for the way back)."""
    return "\n".join([
        "[task]",
        f'name = "m4agent/{task_dir_name(task.name, condition, schema)}"',
        f"description = {json.dumps(f'{task.name} ({task.dataset}), condition {condition}, schema {schema}')}",
        "",
        "[metadata]",
        f'm4agent_task = "{task.name}"',
        f'condition = "{condition}"',
        f'schema = "{schema}"',
        f'dataset = "{task.dataset}"',
        f'reference_model = "{task.reference_model}"',
        "",
        "[agent]",
        f"timeout_sec = {AGENT_TIMEOUT_SEC}",
        'network_mode = "no-network"',
        "",
        "[verifier]",
        f"timeout_sec = {VERIFIER_TIMEOUT_SEC}",
        'network_mode = "public"',
        'user = "root"',
        "",
        "[environment]",
        "cpus = 2",
        "memory_mb = 8192",
        f'workdir = "{layout.WORKSPACE}"',
        "",
    ])


def _write_environment(folder: Path, task: Task, tasks: dict[str, Task], condition: str, schema: str,
                       data_dir: Path, image: str) -> None:
    plan = workspaces.plan_for(task, data_dir, schema)
    data_root = workspaces.data_root(data_dir, schema)
    for rel in plan.files:
        target = folder / "data" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data_root / rel, target)
    plan.write(folder / "plan.json")
    shutil.copyfile(SETUP_SCRIPT, folder / "setup_database.py")
    skills = folder / "skills"
    skills.mkdir()
    place_skills(task, condition, tasks, skills)
    (folder / "Dockerfile").write_text(dockerfile(image))


def dockerfile(image: str) -> str:
    """The environment: the agent image, the task's data, its database, the condition's skills."""
    return "\n".join([
        f"FROM {image}",
        f"COPY --chown={layout.AGENT_UID} data/ {layout.DATA}/",
        f"COPY --chown={layout.AGENT_UID} skills/ {layout.WORKSPACE}/skills/",
        "COPY plan.json setup_database.py /tmp/m4agent-setup/",
        f"RUN python3 /tmp/m4agent-setup/setup_database.py /tmp/m4agent-setup/plan.json {layout.DATA} "
        f"{layout.WORKSPACE}/{layout.DATABASE_NAME}",
        f"WORKDIR {layout.WORKSPACE}",
        "",
    ])


def _write_solution(folder: Path, task: Task, data_dir: Path) -> None:
    folder.mkdir()
    export_reference(task.name, data_dir, folder / "reference.csv")
    (folder / "reference.manifest.json").unlink(missing_ok=True)
    solve = folder / "solve.sh"
    solve.write_text("#!/bin/sh\n# The oracle: the reference, as `m4agent reference export` writes it.\nset -e\n"
                     f"cp /solution/reference.csv {layout.WORKSPACE}/{layout.OUTPUT_NAME}\n")
    solve.chmod(0o755)


def _write_tests(folder: Path, task: Task, data_dir: Path, project_copy: Path) -> None:
    folder.mkdir()
    shutil.copytree(project_copy, folder / "m4agent-project")
    truth_dir = folder / "truth"
    truth_dir.mkdir()
    _reference_only_database(task, data_dir, database_path(truth_dir, task.dataset))
    if task.dataset != "mimic-iv":  # grading's dbt runs in the MIMIC-IV database, here an empty one
        duckdb.connect(str(database_path(truth_dir, "mimic-iv"))).close()
    test = folder / "test.sh"
    test.write_text(verifier_script(task))
    test.chmod(0o755)


def _reference_only_database(task: Task, data_dir: Path, target: Path) -> None:
    """A database holding the task's reference table alone: all ``m4agent grade`` needs of a data dir."""
    relation, _ = find_relation(data_dir, task.reference_model)
    con = duckdb.connect(str(target))
    try:
        con.execute(f"ATTACH '{database_path(data_dir, task.dataset)}' AS built (READ_ONLY)")
        con.execute("CREATE SCHEMA reference")
        con.execute(f'CREATE TABLE reference."{relation.name}" AS '
                    f'SELECT * FROM built.reference."{relation.name}"')
    finally:
        con.close()


def verifier_script(task: Task) -> str:
    """tests/test.sh: install m4agent's dependencies, grade the output, write Harbor's reward and m4agent's result.

    The agent image has Python 3.11 and pip but no venv module, so the dependencies go to a
    ``--target`` folder and m4agent runs from its project copy under /tests (grading needs the
    dbt project beside the package). An output that cannot be graded still gets a reward (0, from
    m4agent's result); only a verifier that cannot install the dependencies fails, its reason in
    the verifier's log."""
    output = f"{layout.WORKSPACE}/{layout.OUTPUT_NAME}"
    return f"""#!/bin/sh
# Grades {output} with m4agent's rules (`m4agent grade`) and writes Harbor's reward file.
# The agent ran in this environment before us: everything it could write (/tmp, HOME, /logs/verifier)
# is untrusted. So /logs/verifier is emptied first (never following a link), the dependencies and the
# run go to fresh folders it could not have prepared, pip reads no configuration and Python no user
# site, and the run is graded afresh (--force).
set -eu
work=$(mktemp -d /tmp/m4agent-verify.XXXXXX)
lib="$work/lib"
python3 -s -c 'import tomllib; print("\\n".join(tomllib.load(open("/tests/m4agent-project/pyproject.toml", "rb"))["project"]["dependencies"]))' \\
    > "$work/requirements.txt"
python3 -s -m pip install --isolated --quiet --target "$lib" -r "$work/requirements.txt"
cp -r /tests/truth "$work/data"
mkdir "$work/run"
cp {output} "$work/run/output.csv" 2>/dev/null || true
echo '{{"task": "{task.name}"}}' > "$work/run/run.json"
mkdir -p /logs/verifier
find /logs/verifier -mindepth 1 -delete
PYTHONPATH="/tests/m4agent-project:$lib" python3 -s -m m4agent.cli grade --results-root "$work/run" \\
    --data-dir "$work/data" --force --no-fail > /logs/verifier/grade.log 2>&1
cp "$work/run/result.json" /logs/verifier/result.json
python3 -s -c 'import json; print(json.load(open("/logs/verifier/result.json"))["reward"])' > /logs/verifier/reward.txt
"""


def read_exported(folder: Path) -> HarborTask:
    """The (task, condition, schema) of an exported task folder, from its task.toml's metadata."""
    meta = tomllib.loads((folder / "task.toml").read_text())["metadata"]
    return HarborTask(folder, meta["m4agent_task"], meta["condition"], meta["schema"])
