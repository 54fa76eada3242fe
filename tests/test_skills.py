"""Skills rendered from the references' YAML: in step with it, clean, and enough for every condition."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from m4agent.harness import matrix
from m4agent.harness.conditions import CONDITION_NAMES, skill_name_conflicts
from m4agent.registry import TASKS_DIR, all_tasks
from m4agent.skills import rawsql
from m4agent.skills.render import decoy_family, render_tree, skill_markdown, stale_files
from m4agent.skills.source import REFERENCE_DIR, family_skills

FIX = "run `m4agent tasks skills` (and commit m4agent/tasks)"


@pytest.fixture(scope="module")
def tasks() -> dict:
    return all_tasks(TASKS_DIR)


def _canonical_skills() -> list[Path]:
    return sorted(TASKS_DIR.glob("*/*/skills/*/SKILL.md"))


def test_committed_skill_files_match_the_reference_yaml(tasks: dict) -> None:
    stale = stale_files(tasks, render_tree(tasks))
    assert not stale, f"{len(stale)} generated file(s) differ from models/marts/reference/*.yml: {FIX}: {stale[:5]}"


def test_rawsql_skills_were_compiled_from_the_current_reference_sql(tasks: dict) -> None:
    assert rawsql.outdated(tasks.values()) == [], "run `m4agent tasks skills --compile`"


def test_a_yaml_edit_shows_as_drift_in_that_familys_skills(tasks: dict, tmp_path: Path) -> None:
    refs = tmp_path / "reference"
    shutil.copytree(REFERENCE_DIR, refs, ignore=shutil.ignore_patterns("*.sql"))
    yml = refs / "ref_meld_24h.yml"
    yml.write_text(yml.read_text().replace("MELD predicts mortality", "MELD estimates mortality", 1))
    stale = stale_files(tasks, render_tree(tasks, reference_dir=refs))
    changed = {p.relative_to(TASKS_DIR).parts[1] for p in stale}
    # the meld tasks' skills, specs and provenance, and the kdigo tasks' decoy (meld's skill)
    assert changed == {"mimic-meld-24h", "mimic-meld-24h-raw", "mimic-kdigo-48h", "mimic-kdigo-48h-raw"}


def test_every_task_plans_under_every_condition(tasks: dict) -> None:
    doc = {"campaign": {"tasks": ["*"], "conditions": list(CONDITION_NAMES), "schemas": ["native"], "trials": 1},
           "agents": [{"name": "oracle", "models": ["default"]}]}
    assert len(matrix.build(doc, Path("."), tasks).runs) == 28 * 6


def test_each_task_has_its_familys_skill_and_an_operational_spec(tasks: dict) -> None:
    skills = family_skills(tasks)
    for task in tasks.values():
        assert (task.skills_dir / skills[task.family].name / "SKILL.md").is_file(), task.name
        assert task.operational_spec.read_text().strip(), task.name


def test_m4bench_sentinel_tasks_are_named_once_each(tasks: dict) -> None:
    sentinels = sorted(t for s in family_skills(tasks).values() for t in s.sentinel_tasks)
    assert sentinels == sorted([
        "mimic-urine-output-rate-raw", "mimic-ventilation", "mimic-creatinine-baseline-raw",
        "mimic-suspicion-infection", "mimic-vasopressor-equivalents-raw", "mimic-oasis-24h",
        "mimic-sepsis3-raw", "mimic-sofa-24h-raw"])


def test_a_decoy_is_another_familys_canonical_skill(tasks: dict) -> None:
    skills = family_skills(tasks)
    for task in tasks.values():
        decoy = skills[decoy_family(task.family, sorted(skills))]
        assert decoy.family != task.family
        [placed] = sorted(task.decoy_skills_dir.glob("*/SKILL.md"))
        assert placed.parent.name == decoy.name and placed.read_text() == skill_markdown(decoy), task.name


def test_with_skill_all_finds_one_version_of_each_skill(tasks: dict) -> None:
    assert skill_name_conflicts(tasks) == {}


def test_canonical_skills_name_no_item_id_schema_or_derived_table() -> None:
    derived = set()
    for raw in TASKS_DIR.glob("*/*/skills-rawsql/*/SKILL.md"):
        derived |= {n for n in re.findall(r"mimiciv_derived\.(\w+)", raw.read_text()) if "_" in n}
    assert derived, "the rawsql skills name no derived table; the check below would prove nothing"
    for skill in _canonical_skills():
        text = skill.read_text()
        assert not re.search(r"\b\d{5,}\b", text), f"item id-like number in {skill}"
        assert "mimiciv_" not in text and "eicu_crd" not in text and "```" not in text, skill
        named = sorted(n for n in derived if re.search(rf"\b{n}\b", text))
        assert not named, f"{skill} names derived tables {named}"


def test_provenance_names_sources_and_a_review_status(tasks: dict) -> None:
    for family in {t.family for t in tasks.values()}:
        doc = yaml.safe_load((TASKS_DIR / family / "PROVENANCE.yaml").read_text())
        assert doc["sources"] and doc["clinical_review"]["status"] in {"pending", "reviewed", "changes-requested"}


def test_an_unquoted_colon_in_a_source_is_refused(tasks: dict, tmp_path: Path) -> None:
    from m4agent.errors import M4AgentError

    refs = tmp_path / "reference"
    shutil.copytree(REFERENCE_DIR, refs, ignore=shutil.ignore_patterns("*.sql"))
    yml = refs / "ref_meld_24h.yml"
    planted = "          - Kamath PS: a title\n          - Kamath PS et al. A model"
    yml.write_text(yml.read_text().replace("          - Kamath PS et al. A model", planted, 1))
    with pytest.raises(M4AgentError, match="meta.skill.sources"):
        family_skills(tasks, refs)


def test_every_skill_frontmatter_is_yaml_with_text_values() -> None:
    for skill in sorted(TASKS_DIR.glob("*/*/skills*/*/SKILL.md")):
        front = yaml.safe_load(skill.read_text().split("---\n", 2)[1])
        assert {"name", "description", "tier", "category"} <= set(front), skill
        assert all(isinstance(v, str) for v in front.values()), skill


def test_a_rawsql_skill_goes_stale_when_a_shared_macro_its_reference_runs_changes() -> None:
    """ref_sofa_24h's SQL is its m4_reference_* macro, which calls the shared first-day assembly,
    which calls the organ scores: an edit to any of them changes the compiled SQL."""
    names = {path.name for path in rawsql.model_sources("ref_sofa_24h")}
    assert {"ref_sofa_24h.sql", "m4_reference_sofa_24h.sql", "sofa_first_day.sql", "sofa_organ_scores.sql"} <= names


def test_rawsql_names_a_narrow_event_model_by_its_source_table() -> None:
    sql = ('SELECT * FROM "m4agent"."mimiciv_events"."int_mimiciv_events__chartevents_used" AS c\n'
           'JOIN "m4agent"."mimiciv_events"."int_mimiciv_events__labevents_used" AS l USING (subject_id)')
    assert rawsql.agent_relation_names(sql) == ("SELECT * FROM mimiciv_icu.chartevents AS c\n"
                                                "JOIN mimiciv_hosp.labevents AS l USING (subject_id)")


def test_no_rawsql_skill_names_a_schema_only_the_reference_build_has() -> None:
    named = [path for path in TASKS_DIR.glob("*/*/skills-rawsql/*/SKILL.md") if "mimiciv_events." in path.read_text()]
    assert named == []
