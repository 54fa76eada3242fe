"""The six experimental conditions: which skills an agent is given and whether it is told the specification.

One table, ``CONDITIONS``, states each condition (M4Bench's ``run.py`` conditions):

=================  ====================================  ==========================
condition          skills placed in the skills folder    instruction
=================  ====================================  ==========================
no-skill           none                                  task text
with-skill         the task's ``skills/*``               task text
with-skill-all     every task's ``skills/*``, by name    task text
with-skill-decoy   the task's ``skills-decoy/*``         task text
with-skill-rawsql  the task's ``skills-rawsql/*``        task text
operational-spec   none                                  + the specification
=================  ====================================  ==========================

Everything fails closed: a condition whose content is missing or empty raises
``M4AgentError`` naming the task and what is missing, never runs as a weaker
condition. Only regular files are placed; a link or special file in a skills folder
is refused, so nothing outside the task tree can reach an agent.

``with-skill-all`` takes the skill folders of every task in M4Bench's order (task
folders sorted by path: family, then task) and keeps the first folder of each name,
as M4Bench does. In M4Bench's own tree eight names have folders that differ between
tasks (a standard task's copy may point at derived tables its raw twin's copy does
not; the eICU and MIMIC-IV copies of ``gcs-calculation`` and ``oasis-score``
differ), so which copy an agent sees follows from that order: ``mimic-sofa-24h``
gets ``mimic-sepsis3-raw``'s ``sofa-score``, the MIMIC-IV OASIS tasks get
``eicu-oasis``'s ``oasis-score``. ``skill_name_conflicts`` names every such case so
a campaign can record it.

``skills_digest`` hashes exactly what ``place_skills`` would write, for run keys and
the campaign lock file.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from m4agent.errors import M4AgentError
from m4agent.registry import Task

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Condition:
    """One condition: the task subfolder whose skills it places (``None``: none), from which tasks, and
    whether the task's operational specification is appended to the instruction."""

    name: str
    skills_folder: str | None
    every_task: bool
    appends_spec: bool
    summary: str


CONDITIONS: tuple[Condition, ...] = (
    Condition("no-skill", None, False, False, "no skills; the task text alone"),
    Condition("with-skill", "skills", False, False, "the task's own clinician-reviewed skills"),
    Condition("with-skill-all", "skills", True, False, "the skills of every task, one per name"),
    Condition("with-skill-decoy", "skills-decoy", False, False, "a skill for another concept"),
    Condition("with-skill-rawsql", "skills-rawsql", False, False,
              "the reference SQL as a skill (matched-content control)"),
    Condition("operational-spec", None, False, True, "no skills; the operational specification appended"),
)
CONDITION_NAMES: tuple[str, ...] = tuple(c.name for c in CONDITIONS)
_BY_NAME = {c.name: c for c in CONDITIONS}


def get_condition(condition: Condition | str) -> Condition:
    """The condition of that name (a ``Condition`` is returned as is)."""
    if isinstance(condition, Condition):
        return condition
    try:
        return _BY_NAME[condition]
    except KeyError:
        raise M4AgentError(f"unknown condition {condition!r}; choose one of {', '.join(CONDITION_NAMES)}") from None


@dataclass(frozen=True)
class SkillFile:
    """One file to place: its path inside the skills folder, its source, content and executable bit."""

    rel: PurePosixPath
    source: Path
    content: bytes
    executable: bool


def skill_plan(task: Task, condition: Condition | str, all_tasks: Iterable[Task] | Mapping[str, Task]
               ) -> tuple[SkillFile, ...]:
    """Every file ``condition`` places for ``task``, sorted by path, read and checked now.

    Raises ``M4AgentError`` when a folder the condition needs is missing or empty (for
    ``with-skill-all``: any task's ``skills/``), a skill folder has no ``SKILL.md``, or
    a link or special file is found.
    """
    cond = get_condition(condition)
    if cond.skills_folder is None:
        return ()
    if not cond.every_task:
        return tuple(sorted(_task_files(task, cond), key=lambda f: f.rel))
    chosen: dict[str, tuple[Task, tuple[SkillFile, ...]]] = {}
    for other in _in_m4bench_order(all_tasks):
        for name, files in _skill_folders(other, cond).items():
            chosen.setdefault(name, (other, files))
    return tuple(sorted((f for _, files in chosen.values() for f in files), key=lambda f: f.rel))


def skill_name_conflicts(all_tasks: Iterable[Task] | Mapping[str, Task]) -> dict[str, tuple[str, ...]]:
    """Skill names whose folders differ between tasks: name -> the tasks holding it, the one placed first.

    ``with-skill-all`` places the first; a campaign records this so nobody mistakes
    the other versions for what the agents saw.
    """
    cond = get_condition("with-skill-all")
    versions: dict[str, dict[tuple[tuple[PurePosixPath, bytes, bool], ...], list[str]]] = {}
    holders: dict[str, list[str]] = {}
    for other in _in_m4bench_order(all_tasks):
        for name, files in _skill_folders(other, cond).items():
            key = tuple((f.rel, f.content, f.executable) for f in files)
            versions.setdefault(name, {}).setdefault(key, []).append(other.name)
            holders.setdefault(name, []).append(other.name)
    return {name: tuple(holders[name]) for name, kinds in sorted(versions.items()) if len(kinds) > 1}


def place_skills(task: Task, condition: Condition | str, all_tasks: Iterable[Task] | Mapping[str, Task],
                 dest: Path) -> tuple[Path, ...]:
    """Copy the skill folders of ``condition`` into ``dest`` (the agent's skills folder); return the files.

    Everything is read and checked before anything is written. ``dest`` is created
    when the condition places skills; a skill folder already in ``dest`` is an error
    (skills are never merged). Files are written ``0644``, or ``0755`` when the source
    is executable.
    """
    plan = skill_plan(task, condition, all_tasks)
    if not plan:
        return ()
    for top in sorted({f.rel.parts[0] for f in plan}):
        if (dest / top).exists() or (dest / top).is_symlink():
            raise M4AgentError(f"{dest / top} already exists; place skills into a fresh skills folder")
    written = []
    for f in plan:
        target = dest.joinpath(*f.rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if f.executable else 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(f.content)
        os.chmod(target, 0o755 if f.executable else 0o644)  # the umask must not change what the agent gets
        written.append(target)
    return tuple(written)


def skills_digest(task: Task, condition: Condition | str, all_tasks: Iterable[Task] | Mapping[str, Task]) -> str:
    """sha256 of exactly what ``place_skills`` would write: each file's path, executable bit and content."""
    h = hashlib.sha256()
    for f in skill_plan(task, condition, all_tasks):
        h.update(f"{f.rel}\0{int(f.executable)}\0{hashlib.sha256(f.content).hexdigest()}\n".encode())
    return h.hexdigest()


def _in_m4bench_order(all_tasks: Iterable[Task] | Mapping[str, Task]) -> list[Task]:
    """Tasks sorted as M4Bench lists its task folders (by family folder, then task folder)."""
    tasks = list(all_tasks.values()) if isinstance(all_tasks, Mapping) else list(all_tasks)
    return sorted(tasks, key=lambda t: (t.folder.parent.name, t.folder.name, t.name))


def _task_files(task: Task, cond: Condition) -> list[SkillFile]:
    return [f for files in _skill_folders(task, cond).values() for f in files]


def _skill_folders(task: Task, cond: Condition) -> dict[str, tuple[SkillFile, ...]]:
    """The skill folders of ``task``'s ``cond.skills_folder``, by name, each with its files; checked."""
    assert cond.skills_folder is not None
    root = task.folder / cond.skills_folder
    what = f"task {task.name!r} (condition {cond.name})"
    try:
        st = root.lstat()
    except FileNotFoundError:
        raise M4AgentError(f"{what} needs the folder {root}, which is missing; add the skills or "
                           "choose another condition") from None
    if not stat.S_ISDIR(st.st_mode):
        raise M4AgentError(f"{what}: {root} is not a plain folder (links are refused); replace it with one")
    folders: dict[str, tuple[SkillFile, ...]] = {}
    with os.scandir(root) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            raise M4AgentError(f"{what}: {entry.path} is not a skill folder; {root} may hold only "
                               "folders (<skill>/SKILL.md); move or remove it")
        files = tuple(_read_tree(Path(entry.path), PurePosixPath(entry.name), what))
        skill_md = next((f for f in files if f.rel == PurePosixPath(entry.name, SKILL_FILE)), None)
        if skill_md is None or not skill_md.content.strip():
            raise M4AgentError(f"{what}: {Path(entry.path) / SKILL_FILE} is missing or empty; "
                               "every skill folder needs its SKILL.md")
        folders[entry.name] = files
    if not folders:
        raise M4AgentError(f"{what}: {root} holds no skill folder; add <skill>/SKILL.md or choose "
                           "another condition")
    return folders


def _read_tree(folder: Path, rel: PurePosixPath, what: str) -> list[SkillFile]:
    """Every regular file below ``folder``, read without following links; anything else is refused."""
    found: list[SkillFile] = []
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISDIR(mode):
            found.extend(_read_tree(Path(entry.path), rel / entry.name, what))
        elif stat.S_ISREG(mode):
            content, executable = _read_regular(Path(entry.path), what)
            found.append(SkillFile(rel / entry.name, Path(entry.path), content, executable))
        else:
            kind = "a link" if stat.S_ISLNK(mode) else "not a regular file"
            raise M4AgentError(f"{what}: {entry.path} is {kind}; skills may hold only regular files, "
                               "so copy its content in place of it")
    return found


def _read_regular(path: Path, what: str) -> tuple[bytes, bool]:
    """The bytes and executable bit of a regular file, opened without following a link at its name."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO swapped in must not block
    except OSError as exc:
        raise M4AgentError(f"{what}: cannot read {path} ({exc.strerror}); skills may hold only regular "
                           "files") from exc
    with os.fdopen(fd, "rb") as src:
        st = os.fstat(src.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise M4AgentError(f"{what}: {path} is not a regular file; skills may hold only regular files")
        return src.read(), bool(st.st_mode & 0o111)
