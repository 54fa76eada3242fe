"""Campaign matrices: expansion, profiles, validation, deduplication."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.task_tree import task_tree_with_skills

from m4agent.errors import M4AgentError
from m4agent.harness import matrix
from m4agent.registry import all_tasks


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return all_tasks(task_tree_with_skills(tmp_path_factory.mktemp("tree") / "tasks"))


def _doc(**campaign: object) -> dict:
    return {"campaign": campaign, "agents": [{"name": "oracle", "models": ["default"]}]}


def test_matrix_expands_the_full_product(tasks: dict) -> None:
    doc = _doc(tasks=["*"], conditions=["no-skill", "with-skill"], schemas=["native"], trials=3)
    built = matrix.build(doc, Path("."), tasks)
    assert len(built.runs) == 28 * 2 * 3


def test_transformed_schemas_skip_eicu_tasks_and_say_so(tasks: dict) -> None:
    built = matrix.build(_doc(tasks=["*"], schemas=["obfuscated"]), Path("."), tasks)
    assert len(built.runs) == 26
    assert len(built.skipped) == 2 and all("eicu" in line for line in built.skipped)


def test_rerun_profile_plans_m4bench_counts_per_model(tasks: dict) -> None:
    doc, base = matrix.load_source("rerun-v1.1", agents=["null"])
    built = matrix.build(doc, base, tasks)
    # M4Bench's rerun-v1.1 is 760 runs for codex's two models; null has one model: half.
    assert len(built.runs) == 760 // 2


def test_unknown_condition_is_an_error_naming_the_choices(tasks: dict) -> None:
    with pytest.raises(M4AgentError, match="unknown condition 'with-skills'.*no-skill"):
        matrix.build(_doc(tasks=["*"], conditions=["with-skills"]), Path("."), tasks)


def test_unknown_task_is_an_error(tasks: dict) -> None:
    with pytest.raises(M4AgentError, match="unknown task"):
        matrix.build(_doc(tasks=["mimic-nope"]), Path("."), tasks)


def test_a_condition_without_content_fails_at_planning(tmp_path: Path) -> None:
    # a task planted without skills: its task.toml and instruction only
    source = all_tasks()["mimic-sofa-24h"].folder
    planted = tmp_path / "tasks" / "sofa" / "mimic-sofa-24h"
    planted.mkdir(parents=True)
    for name in ("task.toml", "instruction.md"):
        (planted / name).write_bytes((source / name).read_bytes())
    bare = all_tasks(tmp_path / "tasks")
    with pytest.raises(M4AgentError, match="skills"):
        matrix.build(_doc(tasks=["mimic-sofa-24h"], conditions=["with-skill"]), Path("."), bare)


def test_a_skill_change_changes_the_run_key(tmp_path: Path) -> None:
    tree = task_tree_with_skills(tmp_path / "a")
    before = matrix.build(_doc(tasks=["mimic-sofa-24h"], conditions=["with-skill"]), Path("."), all_tasks(tree))
    skill = next((tree / "sofa" / "mimic-sofa-24h" / "skills").rglob("SKILL.md"))
    skill.write_text(skill.read_text() + "\nchanged\n")
    all_tasks.cache_clear()
    after = matrix.build(_doc(tasks=["mimic-sofa-24h"], conditions=["with-skill"]), Path("."), all_tasks(tree))
    assert before.runs[0].key != after.runs[0].key
