"""Conditions: what each one places in the agent's skills folder, its digest, and task trees.

Most tests run on our task tree with TEST skills (``support.task_tree``); those that
break a task copy one task folder into a tree of its own first. What the same code
does with M4Bench's own tree and its real skills (placed unchanged, ``with-skill-all``
taking the first folder of each name, the conflicting names) is recorded in
tests/fixtures/golden/original_facts.json and checked by the regeneration check.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support.task_tree import decoy_family, family_skill_name, task_tree_with_skills

from m4agent.errors import M4AgentError
from m4agent.harness.conditions import (
    CONDITION_NAMES,
    get_condition,
    place_skills,
    skill_name_conflicts,
    skills_digest,
)
from m4agent.registry import TASKS_DIR, Task, all_tasks

SOFA = "mimic-sofa-24h"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our task tree with TEST skills; read-only for the tests (copy what you change)."""
    return task_tree_with_skills(tmp_path_factory.mktemp("tree") / "tasks")


@pytest.fixture(scope="module")
def tasks(tree: Path) -> dict[str, Task]:
    return all_tasks(tree)


def placed(dest: Path) -> set[str]:
    """Every path under ``dest`` that is not a folder, relative, as text."""
    return {p.relative_to(dest).as_posix() for p in dest.rglob("*") if not p.is_dir()} if dest.exists() else set()


def own_tree(tmp_path: Path, *sources: Task) -> dict[str, Task]:
    """A tree of its own holding copies of ``sources``' task folders, loaded fresh."""
    root = tmp_path / "own"
    for task in sources:
        assert task.path is not None
        shutil.copytree(task.path, root / task.path.parent.name / task.path.name)
    return all_tasks(root)


def expected_files(task: Task, condition: str, families: list[str]) -> set[str]:
    """What the fixture's design says each condition places for ``task``."""
    own = family_skill_name(task.family) + "/SKILL.md"
    return {
        "no-skill": set(),
        "with-skill": {own},
        "with-skill-all": {family_skill_name(f) + "/SKILL.md" for f in families},
        "with-skill-decoy": {family_skill_name(decoy_family(task.family, families)) + "/SKILL.md"},
        "with-skill-rawsql": {f"{task.name}/SKILL.md"},
        "operational-spec": set(),
    }[condition]


# -- the table --------------------------------------------------------------------------------

def test_the_six_conditions_in_m4bench_order() -> None:
    assert CONDITION_NAMES == ("no-skill", "with-skill", "with-skill-all", "with-skill-decoy",
                               "with-skill-rawsql", "operational-spec")


def test_only_operational_spec_appends_the_specification() -> None:
    assert [name for name in CONDITION_NAMES if get_condition(name).appends_spec] == ["operational-spec"]


def test_unknown_condition_names_the_choices() -> None:
    with pytest.raises(M4AgentError, match=r"unknown condition 'with-skills'.*with-skill-rawsql"):
        get_condition("with-skills")


# -- what each condition places ---------------------------------------------------------------

@pytest.mark.parametrize("condition", CONDITION_NAMES)
def test_each_condition_places_exactly_its_files_for_every_task(
        condition: str, tasks: dict[str, Task], tmp_path: Path) -> None:
    families = sorted({t.family for t in tasks.values()})
    for task in tasks.values():
        dest = tmp_path / task.name / ".claude" / "skills"
        written = place_skills(task, condition, tasks, dest)
        assert placed(dest) == expected_files(task, condition, families), task.name
        assert {p.relative_to(dest).as_posix() for p in written} == placed(dest), task.name


def test_placed_file_has_the_source_content(tasks: dict[str, Task], tmp_path: Path) -> None:
    task = tasks[SOFA]
    place_skills(task, "with-skill-rawsql", tasks, tmp_path)
    assert (tmp_path / SOFA / "SKILL.md").read_bytes() == \
        (task.rawsql_skills_dir / SOFA / "SKILL.md").read_bytes()


def test_conditions_without_skills_create_no_folder(tasks: dict[str, Task], tmp_path: Path) -> None:
    for condition in ("no-skill", "operational-spec"):
        assert place_skills(tasks[SOFA], condition, tasks, tmp_path / "skills") == ()
    assert not (tmp_path / "skills").exists()


def test_layout_below_a_skill_folder_and_executable_bit_are_kept(
        tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    script = mine.skills_dir / "sofa-test" / "scripts" / "check.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho test\n")
    script.chmod(0o755)
    dest = tmp_path / "dest"
    place_skills(mine, "with-skill", [mine], dest)
    assert placed(dest) == {"sofa-test/SKILL.md", "sofa-test/scripts/check.sh"}
    assert os.access(dest / "sofa-test" / "scripts" / "check.sh", os.X_OK)
    assert not os.access(dest / "sofa-test" / "SKILL.md", os.X_OK)


def test_skills_are_never_merged_into_an_existing_skill_folder(tasks: dict[str, Task], tmp_path: Path) -> None:
    (tmp_path / "sofa-test").mkdir()
    with pytest.raises(M4AgentError, match="already exists"):
        place_skills(tasks[SOFA], "with-skill", tasks, tmp_path)


# -- with-skill-all ---------------------------------------------------------------------------

def test_with_skill_all_places_one_folder_per_name(tasks: dict[str, Task], tmp_path: Path) -> None:
    place_skills(tasks[SOFA], "with-skill-all", tasks, tmp_path)
    families = {t.family for t in tasks.values()}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(family_skill_name(f) for f in families)


def test_with_skill_all_is_the_same_for_every_task(tasks: dict[str, Task]) -> None:
    assert len({skills_digest(t, "with-skill-all", tasks) for t in tasks.values()}) == 1


def test_with_skill_all_keeps_the_first_of_differing_folders_and_reports_them(
        tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks["mimic-sepsis3-raw"], tasks[SOFA], tasks["mimic-sofa-24h-raw"])
    # Give sepsis3 a sofa-test skill that differs from the sofa tasks' one: sepsis3's folder sorts first.
    shared = mine["mimic-sepsis3-raw"].skills_dir / "sofa-test" / "SKILL.md"
    shared.parent.mkdir()
    shared.write_text("---\nname: sofa-test\n---\nTEST FIXTURE: the sepsis3 copy\n")
    dest = tmp_path / "dest"
    place_skills(mine[SOFA], "with-skill-all", mine, dest)
    assert (dest / "sofa-test" / "SKILL.md").read_text() == shared.read_text()
    assert skill_name_conflicts(mine) == {"sofa-test": ("mimic-sepsis3-raw", SOFA, "mimic-sofa-24h-raw")}


def test_identical_copies_are_no_conflict(tasks: dict[str, Task]) -> None:
    assert skill_name_conflicts(tasks) == {}


def test_with_skill_all_fails_when_any_task_lacks_skills(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA], tasks["mimic-meld-24h"])
    shutil.rmtree(mine["mimic-meld-24h"].skills_dir)
    with pytest.raises(M4AgentError, match=r"task 'mimic-meld-24h' \(condition with-skill-all\).*skills.*missing"):
        place_skills(mine[SOFA], "with-skill-all", mine, tmp_path / "dest")


# -- failing closed ---------------------------------------------------------------------------

@pytest.mark.parametrize(("condition", "folder"), [("with-skill", "skills"), ("with-skill-decoy", "skills-decoy"),
                                                   ("with-skill-rawsql", "skills-rawsql")])
def test_missing_skills_folder_fails_naming_task_and_folder(
        condition: str, folder: str, tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    shutil.rmtree(mine.folder / folder)
    with pytest.raises(M4AgentError, match=rf"task '{SOFA}' \(condition {condition}\).*/{folder}, which is missing"):
        place_skills(mine, condition, [mine], tmp_path / "dest")
    assert not (tmp_path / "dest").exists()


def test_empty_skills_folder_fails(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    shutil.rmtree(mine.decoy_skills_dir / "suspicion-infection-test")
    with pytest.raises(M4AgentError, match=r"skills-decoy holds no skill folder"):
        place_skills(mine, "with-skill-decoy", [mine], tmp_path / "dest")


def test_skill_folder_without_skill_md_fails(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    (mine.skills_dir / "sofa-test" / "SKILL.md").rename(mine.skills_dir / "sofa-test" / "notes.md")
    with pytest.raises(M4AgentError, match=r"sofa-test/SKILL.md is missing or empty"):
        place_skills(mine, "with-skill", [mine], tmp_path / "dest")


def test_empty_skill_md_fails(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    (mine.skills_dir / "sofa-test" / "SKILL.md").write_text("  \n")
    with pytest.raises(M4AgentError, match=r"SKILL.md is missing or empty"):
        place_skills(mine, "with-skill", [mine], tmp_path / "dest")


def test_loose_file_beside_skill_folders_fails(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    (mine.skills_dir / "README.md").write_text("stray\n")
    with pytest.raises(M4AgentError, match=r"README.md is not a skill folder"):
        place_skills(mine, "with-skill", [mine], tmp_path / "dest")


def test_linked_file_in_a_skill_is_refused_and_nothing_is_written(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    secret = tmp_path / "outside.txt"
    secret.write_text("not for agents\n")
    (mine.skills_dir / "sofa-test" / "extra.md").symlink_to(secret)
    with pytest.raises(M4AgentError, match=r"extra.md is a link"):
        place_skills(mine, "with-skill", [mine], tmp_path / "dest")
    assert not (tmp_path / "dest").exists()


def test_linked_skill_folder_is_refused(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(mine.skills_dir / "sofa-test", elsewhere)
    (mine.skills_dir / "linked").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(M4AgentError, match=r"linked is not a skill folder"):
        place_skills(mine, "with-skill", [mine], tmp_path / "dest")


def test_linked_skills_root_is_refused(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    elsewhere = tmp_path / "elsewhere"
    mine.skills_dir.rename(elsewhere)
    mine.skills_dir.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(M4AgentError, match=r"is not a plain folder \(links are refused\)"):
        place_skills(mine, "with-skill", [mine], tmp_path / "dest")


def test_special_file_in_a_skill_is_refused(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    os.mkfifo(mine.skills_dir / "sofa-test" / "pipe")
    with pytest.raises(M4AgentError, match=r"pipe is not a regular file"):
        place_skills(mine, "with-skill", [mine], tmp_path / "dest")


# -- digests ----------------------------------------------------------------------------------

def test_skills_digest_changes_when_a_placed_skill_changes(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    before = skills_digest(mine, "with-skill", [mine])
    (mine.skills_dir / "sofa-test" / "SKILL.md").write_text("---\nname: sofa-test\n---\nTEST FIXTURE: edited\n")
    assert skills_digest(mine, "with-skill", [mine]) != before


def test_skills_digest_ignores_what_the_condition_does_not_place(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    before = skills_digest(mine, "with-skill", [mine])
    (mine.decoy_skills_dir / "suspicion-infection-test" / "SKILL.md").write_text("TEST FIXTURE: other decoy\n")
    (tmp_path / "own" / "unrelated.txt").write_text("outside every task folder\n")
    assert skills_digest(mine, "with-skill", [mine]) == before


def test_skills_digest_is_equal_for_equal_content(tasks: dict[str, Task]) -> None:
    assert skills_digest(tasks[SOFA], "with-skill", tasks) == skills_digest(tasks["mimic-sofa-24h-raw"], "with-skill", tasks)
    assert skills_digest(tasks[SOFA], "with-skill", tasks) != skills_digest(tasks["mimic-meld-24h"], "with-skill", tasks)


def test_skills_digest_of_no_skills_is_shared_by_conditions_without_skills(tasks: dict[str, Task]) -> None:
    assert skills_digest(tasks[SOFA], "no-skill", tasks) == skills_digest(tasks[SOFA], "operational-spec", tasks)
    assert skills_digest(tasks[SOFA], "no-skill", tasks) != skills_digest(tasks[SOFA], "with-skill", tasks)


def test_skills_digest_counts_the_executable_bit(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    before = skills_digest(mine, "with-skill", [mine])
    (mine.skills_dir / "sofa-test" / "SKILL.md").chmod(0o755)
    assert skills_digest(mine, "with-skill", [mine]) != before


def test_task_digest_changes_with_each_defining_file(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    seen = {mine.digest}
    for rel in ("task.toml", "instruction.md", "operational-spec.md", "skills/sofa-test/SKILL.md",
                "skills-decoy/suspicion-infection-test/SKILL.md", f"skills-rawsql/{SOFA}/SKILL.md"):
        with (mine.folder / rel).open("a") as f:
            f.write("\n# edited\n")
        seen.add(mine.digest)
    assert len(seen) == 7


def test_task_digest_counts_paths_not_only_contents(tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    before = mine.digest
    (mine.skills_dir / "sofa-test").rename(mine.skills_dir / "sofa-test-renamed")
    assert mine.digest != before


def test_task_digest_ignores_files_outside_the_folder_and_link_targets(
        tasks: dict[str, Task], tmp_path: Path) -> None:
    mine = own_tree(tmp_path, tasks[SOFA])[SOFA]
    target = tmp_path / "target.md"
    target.write_text("one\n")
    (mine.skills_dir / "sofa-test" / "linked.md").symlink_to(target)
    (mine.folder / "notes.txt").write_text("not a defining file\n")
    before = mine.digest
    target.write_text("two\n")
    (tmp_path / "own" / "sofa" / "PROVENANCE.yaml").write_text("outside the task folder\n")
    (mine.folder / "notes.txt").write_text("still not a defining file\n")
    assert mine.digest == before


def test_task_digest_is_the_same_for_a_copy_elsewhere(tasks: dict[str, Task], tmp_path: Path) -> None:
    assert own_tree(tmp_path, tasks[SOFA])[SOFA].digest == tasks[SOFA].digest


# -- task trees -------------------------------------------------------------------------------

def test_missing_tasks_dir_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match=rf"{tmp_path / 'nowhere'} does not exist"):
        all_tasks(tmp_path / "nowhere")


def test_tasks_dir_without_tasks_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "sofa" / "mimic-sofa-24h").mkdir(parents=True)
    with pytest.raises(M4AgentError, match=rf"{tmp_path} holds no task"):
        all_tasks(tmp_path)


def test_a_task_name_defined_twice_is_an_error(tasks: dict[str, Task], tmp_path: Path) -> None:
    root = tmp_path / "twice"
    assert tasks[SOFA].path is not None
    shutil.copytree(tasks[SOFA].path, root / "sofa" / SOFA)
    shutil.copytree(tasks[SOFA].path, root / "sofa-copy" / SOFA)
    with pytest.raises(M4AgentError, match=rf"task '{SOFA}' is defined twice"):
        all_tasks(root)


def test_accessors_name_the_condition_folders(tasks: dict[str, Task]) -> None:
    task = tasks[SOFA]
    assert task.path is not None
    assert (task.skills_dir, task.decoy_skills_dir, task.rawsql_skills_dir, task.operational_spec) == (
        task.path / "skills", task.path / "skills-decoy", task.path / "skills-rawsql",
        task.path / "operational-spec.md")


def test_fixture_tree_holds_our_tasks(tasks: dict[str, Task]) -> None:
    assert set(tasks) == set(all_tasks(TASKS_DIR))
