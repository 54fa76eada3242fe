"""Preflight lint: our tree is clean (M4Bench's too: the regeneration check records it), and each kind of leak is reported with file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from m4agent.registry import TASKS_DIR
from m4agent.skills.preflight import doctor_check, lint_tree

SKILL = Path("sofa/mimic-sofa-24h/skills/sofa-score/SKILL.md")
SPEC = Path("sofa/mimic-sofa-24h/operational-spec.md")
INSTRUCTION = Path("sofa/mimic-sofa-24h/instruction.md")
RAW_INSTRUCTION = Path("sofa/mimic-sofa-24h-raw/instruction.md")

# (file, line appended, what the finding says): one of each kind of leak the lint knows
APPENDED_LEAKS = [
    (INSTRUCTION, "Read mimiciv_icu first.", "`mimiciv_`"),
    (INSTRUCTION, "Use the itemid list.", "`itemid`"),
    (INSTRUCTION, "```sql", "fenced SQL"),
    (INSTRUCTION, "Then SELECT the rows.", "`SELECT`"),
    (SKILL, "Count stays FROM mimiciv_derived.vitalsign.", "derived-table query"),
    (SKILL, "The answer is in mimiciv_derived.first_day_sofa.", "dropped table"),
    (SKILL, "```sql", "fenced SQL"),
    (SPEC, "```sql", "fenced SQL"),
    (SPEC, "select stay_id from stays", "SELECT ... FROM"),
    (SPEC, "Rows come from icu.icustays joined to JOIN hosp.admissions.", "schema-qualified"),
    (SPEC, "Read mimiciv_icu.", "schema name"),
    (SPEC, "Keep itemid lists short.", "`itemid`"),
    (SPEC, "As in mimic-code.", "mimic-code"),
    (SPEC, "Heart rate is item 220045.", "five or more digits"),
]


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A copy of our sofa family (both tasks), clean before a leak is planted."""
    dest = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR / "sofa", dest / "sofa")
    assert lint_tree(dest) == []
    return dest


def _append(path: Path, line: str) -> int:
    text = path.read_text().rstrip("\n") + "\n"
    path.write_text(text + line + "\n")
    return text.count("\n") + 1


def test_our_task_tree_passes_the_preflight() -> None:
    assert [str(f) for f in lint_tree(TASKS_DIR)] == []


@pytest.mark.parametrize(("rel", "line", "what"), APPENDED_LEAKS, ids=[f"{r.name}:{w}" for r, _, w in APPENDED_LEAKS])
def test_a_planted_leak_is_reported_with_its_file_and_line(tree: Path, rel: Path, line: str, what: str) -> None:
    number = _append(tree / rel, line)
    found = lint_tree(tree)
    assert [(f.path, f.line) for f in found if what in f.message] == [(tree / rel, number)], [str(f) for f in found]


def test_a_skill_without_its_frontmatter_key_is_reported(tree: Path) -> None:
    skill = tree / SKILL
    skill.write_text(skill.read_text().replace("tier: draft\n", "", 1))
    assert [(f.path, f.line, f.message) for f in lint_tree(tree)] == [(skill, 1, "frontmatter lacks `tier`")]


def test_a_skill_without_the_m4bench_use_note_is_reported(tree: Path) -> None:
    skill = tree / SKILL
    skill.write_text(skill.read_text().replace("## M4Bench use", "## Notes", 1))
    assert [(f.path, f.line) for f in lint_tree(tree)] == [(skill, 1)]


def test_an_extra_file_in_a_canonical_skill_is_reported(tree: Path) -> None:
    extra = tree / SKILL.parent / "answer.sql"
    extra.write_text("-- nothing\n")
    assert [(f.path, f.line) for f in lint_tree(tree)] == [(extra, 1)]


def test_an_empty_operational_spec_is_reported(tree: Path) -> None:
    (tree / SPEC).write_text("\n")
    assert [(f.path, f.line) for f in lint_tree(tree)] == [(tree / SPEC, 1)]


def test_a_raw_task_not_in_raw_mode_is_reported_at_its_mode_line(tree: Path) -> None:
    toml = tree / "sofa/mimic-sofa-24h-raw/task.toml"
    text = toml.read_text()
    toml.write_text(text.replace('mode = "raw"', 'mode = "standard"', 1))
    line = text[:text.index('mode = "raw"')].count("\n") + 1
    assert [(f.path, f.line, f.rule) for f in lint_tree(tree)] == [(toml, line, "raw")]


def test_a_raw_instruction_that_hides_the_dropped_schema_is_reported(tree: Path) -> None:
    instruction = tree / RAW_INSTRUCTION
    instruction.write_text(instruction.read_text().replace("have been removed", "are gone", 1))
    assert [(f.path, f.rule) for f in lint_tree(tree)] == [(instruction, "raw")]


def test_doctor_reports_a_leak_with_its_file_and_line(tree: Path) -> None:
    number = _append(tree / INSTRUCTION, "Use the itemid list.")
    check = doctor_check(tree)
    assert not check["ok"] and f"{tree / INSTRUCTION}:{number}:" in check["detail"]
