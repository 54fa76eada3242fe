"""The task registry: ``m4agent/tasks/<family>/<task>/task.toml`` and ``instruction.md``.

``task.toml`` keeps the original M4Bench tables and keys (``[metadata]``,
``[database]``, ``[ground_truth]``, ``[evaluation]``,
``[evaluation.tolerance]``) so an original task folder loads unchanged.
Additions live in a new table, ``[m4agent]`` (``reference_model``: the dbt
model the task is graded against).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from m4agent.errors import M4AgentError

TASKS_DIR = Path(__file__).resolve().parent / "tasks"

# Identifiers that are never scored (M4Bench "stable identifiers").
STABLE_IDENTIFIERS = frozenset(
    {"subject_id", "hadm_id", "stay_id", "patientunitstayid", "patienthealthsystemstayid", "uniquepid"}
)


@dataclass(frozen=True)
class Task:
    name: str
    family: str
    mode: str
    dataset: str
    description: str
    drop_tables: tuple[str, ...]
    reference: str  # ground-truth alias, e.g. "sofa-24h"
    reference_model: str  # dbt model name, e.g. "ref_sofa_24h"
    key_columns: tuple[str, ...]
    value_columns: tuple[str, ...]
    required_columns: tuple[str, ...]
    row_coverage_threshold: float
    accuracy_threshold: float
    tolerance: dict[str, float] = field(default_factory=dict)
    path: Path | None = None

    @property
    def scored_columns(self) -> tuple[str, ...]:
        """Value columns plus required clinical columns that are neither keys nor stable ids."""
        cols = list(self.value_columns)
        for col in self.required_columns:
            if col in cols or col in self.key_columns or col in STABLE_IDENTIFIERS:
                continue
            cols.append(col)
        return tuple(cols)

    @property
    def instruction(self) -> str:
        if self.path is None:
            return ""
        file = self.path / "instruction.md"
        return file.read_text() if file.exists() else ""


def _parse(path: Path) -> Task:
    toml_file = path / "task.toml"
    try:
        doc = tomllib.loads(toml_file.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise M4AgentError(f"{toml_file}: cannot read task definition ({exc})") from exc
    meta = doc.get("metadata", {})
    db = doc.get("database", {})
    gt = doc.get("ground_truth", {})
    ev = doc.get("evaluation", {})
    ours = doc.get("m4agent", {})
    name = meta.get("name", path.name)
    alias = gt.get("alias") or ours.get("reference") or name.removeprefix("mimic-").removesuffix("-raw")
    return Task(
        name=name,
        family=ours.get("family", path.parent.name),
        mode=meta.get("mode", "standard"),
        dataset=db.get("source", meta.get("database", "mimic-iv")),
        description=meta.get("description", ""),
        drop_tables=tuple(db.get("drop_tables", [])),
        reference=alias,
        reference_model=ours.get("reference_model", "ref_" + alias.replace("-", "_")),
        key_columns=tuple(ev["key_columns"]),
        value_columns=tuple(ev.get("value_columns", [])),
        required_columns=tuple(ev.get("required_columns", [])),
        row_coverage_threshold=float(ev.get("row_coverage_threshold", 1.0)),
        accuracy_threshold=float(ev.get("accuracy_threshold", 1.0)),
        tolerance={k: float(v) for k, v in ev.get("tolerance", {}).items()},
        path=path,
    )


@cache
def all_tasks(tasks_dir: Path = TASKS_DIR) -> dict[str, Task]:
    """Every task under ``tasks_dir``, by name, sorted."""
    found = {}
    for toml_file in sorted(tasks_dir.glob("*/*/task.toml")):
        task = _parse(toml_file.parent)
        found[task.name] = task
    return found


def load_task(name: str, tasks_dir: Path = TASKS_DIR) -> Task:
    tasks = all_tasks(tasks_dir)
    if name not in tasks:
        raise M4AgentError(f"unknown task {name!r}; `m4agent tasks list` shows the {len(tasks)} tasks")
    return tasks[name]
