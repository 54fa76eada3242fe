"""The task registry: 28 task folders, their facts, and `m4agent tasks list|show`.

Each original M4Bench ``task.toml``, as our registry loads it, must agree with ours in
every evaluation field, mode, dataset, reference and drop list; the original's fields
and the digests of its instruction lines are committed facts
(tests/support/original_facts.py), remade from a checkout by the regeneration check.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from support import original_facts
from typer.testing import CliRunner

from m4agent.cli import app
from m4agent.registry import TASKS_DIR, all_tasks

TASKS = all_tasks()
ORIGINAL_TASKS = original_facts.original_tasks()


def test_counts_match_the_paper() -> None:
    assert len(TASKS) == 28
    assert len({t.family for t in TASKS.values()}) == 15
    assert Counter(t.dataset for t in TASKS.values()) == {"mimic-iv": 26, "eicu": 2}
    assert len({t.reference_model for t in TASKS.values()}) == 17
    assert len({t.reference for t in TASKS.values()}) == 17
    assert Counter(t.mode for t in TASKS.values()) == {"raw": 17, "standard": 11}


@pytest.mark.parametrize("name", sorted(TASKS))
def test_each_task_is_complete(name: str) -> None:
    task = TASKS[name]
    assert task.path is not None and task.path.parent.name == task.family and task.path.name == name
    assert task.reference_model == "ref_" + task.reference.replace("-", "_")
    assert set(task.key_columns) <= set(task.required_columns)
    assert set(task.value_columns) <= set(task.required_columns)
    assert set(task.tolerance) <= set(task.required_columns)
    assert 0 < task.row_coverage_threshold <= 1 and 0 < task.accuracy_threshold <= 1
    assert task.description
    if task.dataset == "eicu":
        assert task.mode == "raw" and task.drop_tables == ()
    else:
        assert task.drop_tables and all(t.startswith("mimiciv_derived.") for t in task.drop_tables)
    # The instruction names the output placeholder and the required columns in order.
    text = task.instruction
    assert "{output_path}" in text
    assert ", ".join(task.required_columns) in " ".join(text.split())


def test_twins_share_their_reference() -> None:
    twins = [(name.removesuffix("-raw"), name) for name in TASKS if name.endswith("-raw")
             and name.removesuffix("-raw") in TASKS]
    assert len(twins) == 11
    for standard, raw in twins:
        a, b = TASKS[standard], TASKS[raw]
        assert (a.mode, b.mode) == ("standard", "raw")
        assert a.reference == b.reference and a.reference_model == b.reference_model
        assert a.family == b.family
        assert (a.key_columns, a.value_columns, a.required_columns, a.tolerance) == \
            (b.key_columns, b.value_columns, b.required_columns, b.tolerance)
        assert set(a.drop_tables) <= set(b.drop_tables)


def test_references_follow_the_paper_table() -> None:
    expected = {
        "eicu-gcs": "ref_eicu_gcs", "eicu-oasis": "ref_eicu_oasis",
        "mimic-sepsis3-raw": "ref_sepsis3", "mimic-charlson-raw": "ref_charlson",
        "mimic-sirs-24h-raw": "ref_sirs_24h", "mimic-gcs-24h-raw": "ref_gcs_24h",
        "mimic-suspicion-infection": "ref_suspicion_infection", "mimic-sofa-24h-raw": "ref_sofa_24h",
    }
    for name, model in expected.items():
        assert TASKS[name].reference_model == model
    assert TASKS["mimic-suspicion-infection"].key_columns == ("subject_id", "ab_id")
    assert TASKS["mimic-ventilation-raw"].row_coverage_threshold == 0.90
    assert TASKS["mimic-meld-24h"].tolerance == {"meld": 1.0}


def test_every_original_task_is_ours() -> None:
    assert set(ORIGINAL_TASKS) == set(TASKS)


@pytest.mark.parametrize("name", sorted(ORIGINAL_TASKS))
def test_task_fields_equal_the_original_task_toml(name: str) -> None:
    """Each original task.toml, as our registry loads it (committed facts), has our fields."""
    assert original_facts.task_fields(TASKS[name]) == ORIGINAL_TASKS[name]


@pytest.mark.parametrize("name", sorted(ORIGINAL_TASKS))
def test_instruction_is_our_own_wording(name: str) -> None:
    """Same requirements, different prose: no sentence-length line of the original's instruction
    (known here by its length and SHA-256) appears verbatim in ours."""
    lines = original_facts.facts()["instruction_lines"][name]
    assert lines, f"{name}: no line of the original's instruction recorded"
    assert original_facts.copied_lines(TASKS[name].instruction, lines) == []


def test_instruction_check_finds_a_copied_line() -> None:
    """The digest check sees a line that is there: a line of our own instruction, digested as the
    original's lines are, is found in it."""
    ours = TASKS["mimic-sofa-24h"].instruction
    line = next(n for n in map(original_facts.normalised, ours.splitlines()) if original_facts.is_prose(n))
    assert original_facts.copied_lines("Intro.\n" + ours, [[len(line), original_facts.digest(line)]]) != []


def test_cli_tasks_list() -> None:
    result = CliRunner().invoke(app, ["tasks", "list"])
    assert result.exit_code == 0, result.output
    for task in TASKS.values():
        assert task.name in result.output and task.reference_model in result.output
    assert "28 tasks, 15 families, 17 reference models" in result.output


def test_cli_tasks_show() -> None:
    result = CliRunner().invoke(app, ["tasks", "show", "mimic-urine-output-rate-raw"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    task = TASKS["mimic-urine-output-rate-raw"]
    assert "ref_urine_output_rate" in text and "0.85" in text and "0.95" in text
    assert ", ".join(task.required_columns) in text
    assert "mimiciv_derived.weight_durations" in text and "uo_tm_24hr: 0.01" in text
    assert "heart-rate charting" in text  # the instruction is printed too


def test_cli_tasks_show_unknown() -> None:
    result = CliRunner().invoke(app, ["tasks", "show", "mimic-sofa-48h"])
    assert result.exit_code == 1
    assert "unknown task 'mimic-sofa-48h'" in result.output


def test_tasks_folder_is_packaged() -> None:
    assert TASKS_DIR == Path(__file__).resolve().parent.parent / "m4agent" / "tasks"
    assert len(list(TASKS_DIR.glob("*/*/instruction.md"))) == 28
