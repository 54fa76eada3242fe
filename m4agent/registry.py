"""The task registry: task trees of ``<family>/<task>/task.toml`` and ``instruction.md``.

A task tree is ``m4agent/tasks/`` (the default) or any folder in M4Bench's format,
for example a checkout of the original's ``benchmark/tasks`` (``--tasks-dir``).
``task.toml`` keeps the original M4Bench tables and keys (``[metadata]``,
``[database]``, ``[ground_truth]``, ``[evaluation]``, ``[evaluation.tolerance]``) so
an original task folder loads unchanged. Additions live in a new table,
``[m4agent]`` (``reference_model``: the dbt model the task is graded against).

Beside the two files a task folder may hold what the harness's conditions use:
``skills/`` (the canonical skills), ``skills-decoy/`` (a mismatched skill),
``skills-rawsql/`` (the reference SQL as a skill) and ``operational-spec.md``.
``Task.digest`` identifies everything that defines a task, so a run's key changes
when, and only when, the task it ran changes.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath

from m4agent.errors import M4AgentError

TASKS_DIR = Path(__file__).resolve().parent / "tasks"

# Identifiers that are never scored (M4Bench "stable identifiers").
STABLE_IDENTIFIERS = frozenset(
    {"subject_id", "hadm_id", "stay_id", "patientunitstayid", "patienthealthsystemstayid", "uniquepid"}
)

# The entries of a task folder that define the task (``skills*`` matches every skills folder).
DEFINING_FILES = ("task.toml", "instruction.md", "operational-spec.md")
SKILLS_PREFIX = "skills"


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

    @property
    def folder(self) -> Path:
        """The task's folder; a task built in memory has none, and asking for it is an error."""
        if self.path is None:
            raise M4AgentError(f"task {self.name!r} has no task folder; load it from a task tree "
                               "(m4agent/tasks or --tasks-dir) to use its files")
        return self.path

    @property
    def skills_dir(self) -> Path:
        """``skills/``: the canonical skills (condition ``with-skill``); may not exist."""
        return self.folder / "skills"

    @property
    def decoy_skills_dir(self) -> Path:
        """``skills-decoy/``: a mismatched skill (condition ``with-skill-decoy``); may not exist."""
        return self.folder / "skills-decoy"

    @property
    def rawsql_skills_dir(self) -> Path:
        """``skills-rawsql/``: the reference SQL as a skill (``with-skill-rawsql``); may not exist."""
        return self.folder / "skills-rawsql"

    @property
    def operational_spec(self) -> Path:
        """``operational-spec.md`` (condition ``operational-spec``); may not exist."""
        return self.folder / "operational-spec.md"

    @property
    def digest(self) -> str:
        """sha256 over the files that define the task, read now (never cached).

        Covered: ``task.toml``, ``instruction.md``, ``operational-spec.md`` and every
        file under a ``skills*`` folder, each by its path relative to the task folder
        and its content, in sorted path order. Links are recorded by their target text
        and never followed, so nothing outside the folder can change the digest.
        """
        h = hashlib.sha256()
        for rel, kind, payload in _defining_entries(self.folder):
            h.update(f"{kind}\0{rel}\0{hashlib.sha256(payload).hexdigest()}\n".encode())
        return h.hexdigest()


def _defining_entries(folder: Path) -> list[tuple[str, str, bytes]]:
    """(relative path, kind, bytes) of each defining entry under ``folder``, sorted by path."""
    entries: list[tuple[str, str, bytes]] = []
    for rel, abs_path, st in _walk_no_links(folder, PurePosixPath(), _is_defining):
        if stat.S_ISLNK(st.st_mode):
            entries.append((str(rel), "link", os.readlink(abs_path).encode()))
        elif stat.S_ISREG(st.st_mode):
            entries.append((str(rel), "file", Path(abs_path).read_bytes()))
        else:
            entries.append((str(rel), "special", b""))
    return sorted(entries)


def _is_defining(name: str) -> bool:
    return name in DEFINING_FILES or name.startswith(SKILLS_PREFIX)


def _walk_no_links(folder: Path, rel: PurePosixPath, keep: Callable[[str], bool] | None = None
                   ) -> Iterator[tuple[PurePosixPath, str, os.stat_result]]:
    """Every entry below ``folder`` but directories; symbolic links are yielded, not entered.

    ``keep`` filters the names of ``folder``'s own entries (not those further down).
    """
    with os.scandir(folder) as it:
        children = sorted((e for e in it if keep is None or keep(e.name)), key=lambda e: e.name)
    for entry in children:
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            yield from _walk_no_links(Path(entry.path), rel / entry.name)
        else:
            yield rel / entry.name, entry.path, st


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
    """Every task under ``tasks_dir`` (``<family>/<task>/task.toml``) by name, in folder order; cached.

    A folder that does not exist or holds no task, and two folders declaring the
    same task name, are errors: a typo in ``--tasks-dir`` must not become an empty
    campaign, nor one task silently hide another.
    """
    tasks_dir = Path(tasks_dir)
    if not tasks_dir.is_dir():
        raise M4AgentError(f"task folder {tasks_dir} does not exist; pass --tasks-dir a folder of "
                           "<family>/<task>/task.toml task definitions")
    found: dict[str, Task] = {}
    for toml_file in sorted(tasks_dir.glob("*/*/task.toml")):
        task = _parse(toml_file.parent)
        if task.name in found:
            raise M4AgentError(f"task {task.name!r} is defined twice in {tasks_dir}: "
                               f"{found[task.name].path} and {task.path}; rename or remove one")
        found[task.name] = task
    if not found:
        raise M4AgentError(f"task folder {tasks_dir} holds no task (no <family>/<task>/task.toml); "
                           "pass --tasks-dir the folder holding the family folders, such as "
                           "M4Bench's benchmark/tasks")
    return found


def load_task(name: str, tasks_dir: Path = TASKS_DIR) -> Task:
    tasks = all_tasks(tasks_dir)
    if name not in tasks:
        raise M4AgentError(f"unknown task {name!r}; `m4agent tasks list` shows the {len(tasks)} tasks")
    return tasks[name]
