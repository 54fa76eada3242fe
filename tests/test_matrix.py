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


@pytest.mark.parametrize(("agent", "runs"), [("codex", 760), ("gemini", 760), ("claude", 784)])
def test_rerun_profile_plans_m4bench_published_design_for_each_agent(tasks: dict, agent: str, runs: int) -> None:
    # benchmark/matrix.py::_build_rerun_v1_1_tiers: 560 + 100 + 100 per two models; claude's tier 5 adds
    # 4 tasks x 2 models x 3 trials
    doc, base = matrix.load_source("rerun-v1.1", agents=[agent])
    assert len(matrix.build(doc, base, tasks).runs) == runs


def test_claude_raw_sql_replication_runs_are_runs_of_their_own(tasks: dict) -> None:
    doc, base = matrix.load_source("rerun-v1.1", agents=["claude"])
    built = matrix.build(doc, base, tasks)
    rawsql = [s for s in built.runs if s.task == "mimic-ventilation" and s.condition == "with-skill-rawsql"
              and s.model == "opus"]
    assert sorted(s.trial for s in rawsql) == [1, 2, 3, 4, 5, 6, 7, 8]


def test_two_blocks_planning_one_run_are_an_error_naming_both(tasks: dict) -> None:
    doc = {"agents": [{"name": "oracle"}], "blocks": [
        {"name": "main", "tasks": ["mimic-sofa-24h", "eicu-gcs"], "conditions": ["no-skill"], "trials": 5},
        {"name": "replication", "tasks": ["eicu-gcs"], "conditions": ["no-skill"], "trials": 3}]}
    with pytest.raises(M4AgentError, match=r"block 2 \(replication\) plans eicu-gcs no-skill native "
                                           r"oracle/default t1, which block 1 \(main\) already plans"):
        matrix.build(doc, Path("."), tasks)


def test_a_task_listed_twice_in_one_block_is_an_error(tasks: dict) -> None:
    with pytest.raises(M4AgentError, match=r"\[campaign\] plans mimic-sofa-24h .* which \[campaign\] already"):
        matrix.build(_doc(tasks=["mimic-sofa-24h", "mimic-sofa-24h"]), Path("."), tasks)


def test_first_trial_numbers_a_blocks_trials_from_it(tasks: dict) -> None:
    doc = {"agents": [{"name": "oracle"}], "blocks": [
        {"tasks": ["eicu-gcs"], "trials": 5}, {"tasks": ["eicu-gcs"], "trials": 3, "first_trial": 6}]}
    assert [s.trial for s in matrix.build(doc, Path("."), tasks).runs] == [1, 2, 3, 4, 5, 6, 7, 8]
