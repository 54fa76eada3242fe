"""Task trees for the harness's tests: ours with TEST skills added, and M4Bench's own when available.

``task_tree_with_skills`` gives the harness's tests content whose every byte they know: it
copies our tasks under ``m4agent/tasks/`` without their skills and specifications and gives
every task what each condition needs, all plainly marked as test content:

- ``skills/<family>-test/SKILL.md``: one skill per family, with M4Bench's frontmatter
  (name, description, tier, category); twins of a family get identical copies, as
  M4Bench's twins mostly do, so ``with-skill-all`` finds one folder per family.
- ``skills-decoy/<other family>-test/SKILL.md``: the skill of the next family in
  sorted order (the last family takes the first), a copy as M4Bench's decoys are.
- ``skills-rawsql/<task>/SKILL.md``: a stand-in for the reference SQL.
- ``operational-spec.md``: a short specification naming the task's columns.

``m4bench_task_tree`` gives the original's ``benchmark/tasks`` when ``$M4_ORIGINAL_REPO``
names a checkout (or a git mirror, whose tree is exported) of ``hannesill/m4``; only the
regeneration of the golden facts uses it (tests/support/original_facts.py).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import tomllib
from pathlib import Path

from m4agent.registry import TASKS_DIR

TEST_MARK = "TEST FIXTURE"


def family_skill_name(family: str) -> str:
    """The folder name of a family's TEST skill."""
    return f"{family}-test"


def family_skill_text(family: str) -> str:
    """The SKILL.md of a family's TEST skill (the same for every task of the family)."""
    name = family_skill_name(family)
    return (
        "---\n"
        f"name: {name}\n"
        f"description: {TEST_MARK} skill for the {family} family of m4agent's test suite; not clinical guidance.\n"
        "tier: test\n"
        "category: test\n"
        "---\n\n"
        f"# {TEST_MARK}: {family}\n\n"
        f"This skill exists only so the harness's tests can place a {family} skill.\n\n"
        "## M4Bench use\n\nTest content: it tells an agent nothing about the task.\n"
    )


def decoy_family(family: str, families: list[str]) -> str:
    """The family whose skill is ``family``'s decoy: the next in sorted order, cyclically."""
    ordered = sorted(families)
    return ordered[(ordered.index(family) + 1) % len(ordered)]


def task_tree_with_skills(dest: Path) -> Path:
    """Copy ``m4agent/tasks`` to ``dest`` (which must not exist) with TEST skills, decoys, raw-SQL
    skills and operational specifications for every task; return ``dest``."""
    shutil.copytree(TASKS_DIR, dest, ignore=shutil.ignore_patterns(
        "__pycache__", "skills", "skills-decoy", "skills-rawsql", "operational-spec.md", "PROVENANCE.yaml"))
    folders = sorted(toml.parent for toml in dest.glob("*/*/task.toml"))
    families = sorted({folder.parent.name for folder in folders})
    for folder in folders:
        family = folder.parent.name
        doc = tomllib.loads((folder / "task.toml").read_text())
        name = doc["metadata"]["name"]
        columns = ", ".join(doc["evaluation"]["required_columns"])
        keys = ", ".join(doc["evaluation"]["key_columns"])
        _write(folder / "skills" / family_skill_name(family) / "SKILL.md", family_skill_text(family))
        decoy = decoy_family(family, families)
        _write(folder / "skills-decoy" / family_skill_name(decoy) / "SKILL.md", family_skill_text(decoy))
        _write(folder / "skills-rawsql" / name / "SKILL.md",
               f"# {TEST_MARK}: reference SQL stand-in for {name}\n\n```sql\nSELECT 1 AS test_only;\n```\n")
        _write(folder / "operational-spec.md",
               f"# {TEST_MARK}: operational specification for {name}\n\n"
               f"One row per {keys}. Columns, in order: {columns}.\n")
    return dest


def m4bench_task_tree(dest: Path) -> Path | None:
    """M4Bench's ``benchmark/tasks`` from ``$M4_ORIGINAL_REPO`` (exported into ``dest`` from a git
    mirror); ``None`` when the variable is unset."""
    repo = os.environ.get("M4_ORIGINAL_REPO")
    if not repo:
        return None
    checkout = Path(repo) / "benchmark" / "tasks"
    if checkout.is_dir():
        return checkout
    archive = subprocess.run(["git", "--git-dir", repo, "archive", "--format=tar", "HEAD", "benchmark/tasks"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest / "benchmark" / "tasks"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
