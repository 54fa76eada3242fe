"""The task registry: 28 task folders, their facts, and `m4agent tasks list|show`.

Where the original M4Bench repository is available (a git mirror at
``$M4_ORIGINAL_REPO``), each original ``task.toml`` is loaded unchanged with
our registry and must agree with ours in every evaluation field, mode,
dataset, reference and drop list.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from m4agent.cli import app
from m4agent.registry import TASKS_DIR, Task, all_tasks, load_task

ORIGINAL_REPO: Path | None = Path(os.environ["M4_ORIGINAL_REPO"]) if os.environ.get("M4_ORIGINAL_REPO") else None
TASKS = all_tasks()


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ORIGINAL_REPO), *args], capture_output=True, text=True,
                          check=True).stdout


def _original_task_files() -> list[str]:
    if ORIGINAL_REPO is None or not ORIGINAL_REPO.exists():
        return []
    try:
        listing = _git("ls-tree", "-r", "--name-only", "HEAD", "benchmark/tasks")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return []
    return [p for p in listing.splitlines() if re.fullmatch(r"benchmark/tasks/[^/]+/[^/]+/task\.toml", p)]


ORIGINAL_FILES = _original_task_files()
needs_mirror = pytest.mark.skipif(
    not ORIGINAL_FILES,
    reason="set M4_ORIGINAL_REPO to a clone of hannesill/m4" if ORIGINAL_REPO is None
    else f"original M4Bench repository not found at M4_ORIGINAL_REPO={ORIGINAL_REPO}")


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


def _load_original(tmp_path: Path, path: str) -> Task:
    family, name = path.split("/")[2:4]
    folder = tmp_path / family / name
    folder.mkdir(parents=True)
    (folder / "task.toml").write_text(_git("show", f"HEAD:{path}"))
    return load_task(name, tasks_dir=tmp_path)


@needs_mirror
def test_every_original_task_is_ours() -> None:
    names = {p.split("/")[3] for p in ORIGINAL_FILES}
    assert names == set(TASKS)


@needs_mirror
@pytest.mark.parametrize("path", ORIGINAL_FILES, ids=lambda p: p.split("/")[3])
def test_original_task_loads_unchanged_and_matches(path: str, tmp_path: Path) -> None:
    original = _load_original(tmp_path, path)
    ours = TASKS[original.name]
    for field in ("key_columns", "value_columns", "required_columns", "row_coverage_threshold",
                  "accuracy_threshold", "tolerance", "mode", "dataset", "drop_tables", "reference",
                  "reference_model", "family"):
        assert getattr(ours, field) == getattr(original, field), field
    assert ours.scored_columns == original.scored_columns


@needs_mirror
@pytest.mark.parametrize("path", ORIGINAL_FILES, ids=lambda p: p.split("/")[3])
def test_instruction_is_our_own_wording(path: str) -> None:
    """Same requirements, different prose: no sentence-length line of the original appears verbatim."""
    name = path.split("/")[3]
    theirs = _git("show", f"HEAD:{path.removesuffix('task.toml')}instruction.md")
    ours = " ".join(TASKS[name].instruction.split()).lower()
    plain_list = re.compile(r"^([\w-]+, *)+[\w-]+,?\.?$")  # column or category names: facts, not prose
    for line in theirs.splitlines():
        line = " ".join(line.split()).lower()
        if len(line) < 40 or plain_list.match(line):
            continue
        assert line not in ours, f"copied from the original instruction: {line!r}"


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
