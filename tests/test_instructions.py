"""Instruction assembly: the parts in M4Bench's order, placeholders, the specification, the rewrite last."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from support.task_tree import task_tree_with_skills

from m4agent.errors import M4AgentError
from m4agent.harness.conditions import CONDITION_NAMES
from m4agent.harness.instructions import CONVENTIONS, ISOLATION, SPEC_HEADING, build_instruction
from m4agent.registry import TASKS_DIR, Task, all_tasks

SOFA = "mimic-sofa-24h"


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Task]:
    """Our task tree with TEST skills and specifications; read-only for the tests."""
    return all_tasks(task_tree_with_skills(tmp_path_factory.mktemp("tree") / "tasks"))


def own_copy(tmp_path: Path, task: Task) -> Task:
    """A copy of ``task`` in a tree of its own, to change freely."""
    assert task.path is not None
    shutil.copytree(task.path, tmp_path / "own" / task.path.parent.name / task.path.name)
    return all_tasks(tmp_path / "own")[task.name]


def test_parts_come_in_m4bench_order(tasks: dict[str, Task]) -> None:
    text = build_instruction(tasks[SOFA], "operational-spec")
    positions = [text.index(ISOLATION), text.index(CONVENTIONS), text.index("# SOFA score over the first ICU day"),
                 text.index(SPEC_HEADING), text.index("TEST FIXTURE: operational specification")]
    assert positions == sorted(positions) and positions[0] == 0


def test_paragraphs_say_what_m4bench_says(tasks: dict[str, Task]) -> None:
    assert all(w in ISOLATION for w in ("current directory", "database", "web", "install"))
    assert all(w in CONVENTIONS for w in ("standard public conventions", "reference", "lowers the reward"))


def test_placeholders_are_rendered_to_workspace_files(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_copy(tmp_path, tasks[SOFA])
    (mine.folder / "instruction.md").write_text("Read {db_path}; write {output_path}; again {output_path}.\n")
    text = build_instruction(mine, "no-skill")
    assert text.endswith("\n\nRead ./database.duckdb; write ./output.csv; again ./output.csv.\n")


@pytest.mark.parametrize("condition", CONDITION_NAMES)
def test_every_task_renders_without_braces_under_every_condition(condition: str, tasks: dict[str, Task]) -> None:
    for task in tasks.values():
        text = build_instruction(task, condition)
        assert "./output.csv" in text and not re.search(r"\{\w+\}", text), task.name


def test_unknown_placeholder_is_an_error_naming_it(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_copy(tmp_path, tasks[SOFA])
    (mine.folder / "instruction.md").write_text("Write {output_path} using {data_dir} and {db_path}.\n")
    with pytest.raises(M4AgentError, match=r"unknown placeholder\(s\) \{data_dir\}"):
        build_instruction(mine, "no-skill")


def test_missing_instruction_is_an_error(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_copy(tmp_path, tasks[SOFA])
    (mine.folder / "instruction.md").unlink()
    with pytest.raises(M4AgentError, match=rf"task '{SOFA}' has no instruction"):
        build_instruction(mine, "no-skill")


def test_specification_is_appended_only_for_operational_spec(tasks: dict[str, Task]) -> None:
    for condition in CONDITION_NAMES:
        text = build_instruction(tasks[SOFA], condition)
        assert (SPEC_HEADING in text) == (condition == "operational-spec"), condition
        assert ("TEST FIXTURE: operational specification" in text) == (condition == "operational-spec"), condition


def test_specification_content_is_appended_whole(tasks: dict[str, Task]) -> None:
    spec = tasks[SOFA].operational_spec.read_text().strip()
    assert build_instruction(tasks[SOFA], "operational-spec").endswith("\n\n" + spec + "\n")


def test_missing_specification_fails_closed(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_copy(tmp_path, tasks[SOFA])
    mine.operational_spec.unlink()
    with pytest.raises(M4AgentError, match=rf"task '{SOFA}' \(condition operational-spec\).*operational-spec.md is missing"):
        build_instruction(mine, "operational-spec")


def test_empty_specification_fails_closed(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_copy(tmp_path, tasks[SOFA])
    mine.operational_spec.write_text("\n   \n")
    with pytest.raises(M4AgentError, match=r"operational-spec.md is missing or empty"):
        build_instruction(mine, "operational-spec")


def test_linked_specification_is_refused(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_copy(tmp_path, tasks[SOFA])
    outside = tmp_path / "spec.md"
    outside.write_text("a specification kept outside the task folder\n")
    mine.operational_spec.unlink()
    mine.operational_spec.symlink_to(outside)
    with pytest.raises(M4AgentError, match=r"operational-spec.md is a link"):
        build_instruction(mine, "operational-spec")


def test_missing_specification_does_not_matter_to_other_conditions(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_copy(tmp_path, tasks[SOFA])
    mine.operational_spec.unlink()
    assert build_instruction(mine, "no-skill") == build_instruction(tasks[SOFA], "no-skill")


def test_rewrite_sees_the_whole_instruction_and_has_the_last_word(tasks: dict[str, Task]) -> None:
    seen: list[str] = []

    def rewrite(text: str) -> str:
        seen.append(text)
        return text.replace("mimiciv", "schema_x").upper()

    text = build_instruction(tasks[SOFA], "operational-spec", rewrite=rewrite)
    assert seen == [build_instruction(tasks[SOFA], "operational-spec")]
    assert text == seen[0].replace("mimiciv", "schema_x").upper()


def test_without_rewrite_the_text_ends_in_one_newline(tasks: dict[str, Task]) -> None:
    text = build_instruction(tasks[SOFA], "no-skill")
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_unknown_condition_is_an_error(tasks: dict[str, Task]) -> None:
    with pytest.raises(M4AgentError, match="unknown condition 'op-spec'"):
        build_instruction(tasks[SOFA], "op-spec")


def test_packaged_tasks_build_under_no_skill() -> None:
    for task in all_tasks(TASKS_DIR).values():
        assert build_instruction(task, "no-skill").startswith(ISOLATION)
