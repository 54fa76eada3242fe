"""Workspace database templates: one per distinct plan, built once per campaign start, copied per run.

A task's database is a few kilobytes of views over the read-only Parquet mounted at ``/data``.
Tasks with equal plans (all raw MIMIC-IV tasks share one; a task and its twin often do) get
the same database, so the harness builds each distinct plan's database once, in one container
of the agent image per schema variant (its DuckDB writes the file the agent's DuckDB opens;
the variant's whole export is mounted at ``/data``, the same paths a run's narrower mount has),
in one Python process (``setup_database.py`` takes many plans), and every attempt starts from a
copy. The templates live in ``CAMPAIGN/.workspaces/<variant>/<export digest>/<plan digest>.duckdb``:
a new export of the data (other files, perhaps other columns) gets new templates.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from m4agent import layout, workspaces
from m4agent.errors import M4AgentError
from m4agent.harness import container as docker_layer
from m4agent.registry import Task

TEMPLATES_DIR = ".workspaces"
OUT = "/out"
BUILD_SECONDS = 600.0


def export_digest(data_dir: Path, variant: str) -> str:
    """A digest of the variant's export stamps (each names its source database's state and tables)."""
    from m4agent.workspaces.store import NATIVE, stamp_path

    stamps = ([stamp_path(data_dir, NATIVE, dataset) for dataset in ("mimic-iv", "eicu")] if variant == NATIVE
              else [stamp_path(data_dir, variant)])
    digest = hashlib.sha256()
    for stamp in stamps:
        digest.update(stamp.name.encode() + b"\0" + (stamp.read_bytes() if stamp.exists() else b"-"))
    return digest.hexdigest()


def build(engine: Any, image: str, campaign_dir: Path, data_dir: Path, tasks: Mapping[str, Task],
          cells: Iterable[tuple[str, str]], campaign_id: str, limits: docker_layer.Limits) -> dict[tuple[str, str], Path]:
    """The template of every (task, variant) cell, building the missing ones; by cell."""
    found: dict[tuple[str, str], Path] = {}
    missing: dict[str, dict[str, workspaces.Plan]] = {}
    for task_name, variant in sorted(set(cells)):
        plan = workspaces.plan_for(tasks[task_name], data_dir, variant)
        folder = campaign_dir / TEMPLATES_DIR / variant / export_digest(data_dir, variant)[:16]
        path = folder / f"{plan.digest[:24]}.duckdb"
        found[(task_name, variant)] = path
        if not path.exists():
            missing.setdefault(variant, {})[path.name] = plan
    for variant, plans in sorted(missing.items()):
        folder = next(iter({p.parent for key, p in found.items() if key[1] == variant}))
        _build_variant(engine, image, folder, workspaces.data_root(data_dir, variant), plans,
                       docker_layer.campaign_labels(campaign_id, campaign_dir, "templates"), limits)
    return found


def _build_variant(engine: Any, image: str, folder: Path, data_root: Path, plans: Mapping[str, workspaces.Plan],
                   labels: dict[str, str], limits: docker_layer.Limits) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
    try:
        shutil.copy(workspaces.SETUP_SCRIPT, work / "setup_database.py")
        args: list[str] = []
        for name, plan in sorted(plans.items()):
            plan.write(work / f"{name}.json")
            args += [f"{OUT}/{name}.json", layout.DATA, f"{OUT}/{name}"]
        uid, gid = docker_layer.container_user()
        import os

        if os.getuid() == 0:
            os.chown(work, uid, gid)
        name = f"m4agent-{labels[docker_layer.LABEL_CAMPAIGN][:8]}-templates-{folder.parent.name}"
        spec = docker_layer.ContainerSpec(
            image=image, name=name, command=["sleep", "infinity"], limits=limits, labels=labels,
            binds=[docker_layer.Bind(data_root, layout.DATA), docker_layer.Bind(work, OUT, read_only=False)])
        with docker_layer.AgentContainer(engine, spec) as box:
            box.start()
            done = box.exec(["python3", f"{OUT}/setup_database.py", *args], BUILD_SECONDS, log=folder / "build.log")
        if done.timed_out or done.exit_code != 0:
            log = (folder / "build.log").read_text()[-1000:] if (folder / "build.log").exists() else ""
            raise M4AgentError(f"building the workspace databases failed ({'timed out' if done.timed_out else done.exit_code}): {log}")
        for name in plans:
            shutil.move(work / name, folder / name)  # a rename within one folder's file system
    finally:
        shutil.rmtree(work, ignore_errors=True)
