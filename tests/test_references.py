"""The references against the original M4Bench ground truth, and `m4agent reference export`.

The judge's check, on committed data: synthesize MIMIC-IV and eICU with the golden files'
seed and size (tests/fixtures/golden/provenance.json), build our references with dbt, and
hold every task's exported reference to the original's ground truth on the same data
(tests/fixtures/golden/truth/, made by the original's own SQL on m4-infra's
``mimiciv_derived`` with scripts/regenerate_golden.py): exactly the original's keys and
values (numbers to the export's 15 significant digits, no grading tolerance). Perturbed and
randomly edited copies of the original's truth, graded against our references, must get
M4Bench's recorded verdicts. No checkout of the original is needed; the regeneration check
(tests/test_golden_regeneration.py) remakes the golden files from one.

The synthetic data carries the generator's edge cases (`synthesize(..., edge_cases=True)`:
values at every cut-point, negative and zero values, duplicates at one charttime, ties,
window edges, unit variants, service ties, cultures without specimen or time, duplicate
prescriptions, urine chartings off the minute) on top of the shapes real data has (stay
times to the second, specimens drawn together, equally low GCS chartings). Where the
original's own choice is arbitrary (a tie its SQL leaves to the engine's row order and
threads), any of its picks is one of its possible answers: each such tie is named, with
the evidence that it moves, in tests/conformance_exceptions.py (ORIGINAL_TIES), and the
references must give exactly the answer the original gives when left only the pick our
rule makes (tests/fixtures/golden/truth_resolved/). That answer may differ from the
recorded truth only at the tie's keys (committed in tests/fixtures/golden/ties.json) and
columns, and the ties must leave most keys alike.

Also: every task exports a non-empty reference with unique keys in the task's
column order, and raw/standard twins export identical bytes (that two builds export
identical bytes, whatever the row order and thread count, is tests/test_determinism.py).

Slow (synthesis, one dbt build).
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from conformance_exceptions import ORIGINAL_TIES, OriginalTie, original_ties_of
from support import golden
from typer.testing import CliRunner

from m4agent.cli import app
from m4agent.data.synth import synthesize
from m4agent.dbt.runner import DataQualityFinding, build
from m4agent.paths import database_path
from m4agent.reference_export import MICROSECONDS, SECONDS, export, find_relation, format_value, manifest_path
from m4agent.registry import Task, all_tasks

pytestmark = pytest.mark.slow

TASKS = all_tasks()
# The golden files' data set, so the references are compared with the original's recorded results.
PATIENTS = golden.provenance()["patients"]
SEED = golden.provenance()["seed"]


@dataclass(frozen=True)
class Built:
    root: Path
    findings: list[DataQualityFinding]  # the build's data-quality summary


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("refs")
    for dataset in ("mimic-iv", "eicu"):
        synthesize(dataset, root, patients=PATIENTS, seed=SEED, edge_cases=True)
    # The references, everything upstream, and the tests whose every parent is built: with the full
    # tests (staging, intermediate, value sets; a default build leaves them out), so the suite runs
    # them once, here.
    findings = build(root, select="+marts.reference", full_tests=True)
    return Built(root, findings)


@pytest.fixture(scope="module")
def data_dir(built: Built) -> Path:
    return built.root


def test_dirty_data_warns_without_blocking_references(built: Built, exports: dict[str, Path]) -> None:
    """A negative creatinine fails the kdigo_creatinine range test, as a warning with its
    failing rows stored; both KDIGO tasks still get their reference."""
    creatinine = [f for f in built.findings
                  if f.model == "int_mimiciv_organfailure__kdigo_creatinine" and f.kind == "accepted_range"]
    assert creatinine, f"no warning for the planted negative creatinine; findings: {built.findings}"
    assert creatinine[0].status == "warn" and creatinine[0].rows and creatinine[0].stored_in
    con = duckdb.connect(str(database_path(built.root, "mimic-iv")), read_only=True)
    try:
        stored = con.execute(f"SELECT COUNT(*) FROM {creatinine[0].stored_in}").fetchone()[0]
    finally:
        con.close()
    assert stored == creatinine[0].rows
    assert all(f.status == "warn" for f in built.findings), [f for f in built.findings if f.status != "warn"]
    for task in ("mimic-kdigo-48h", "mimic-kdigo-48h-raw"):
        assert len(_rows(exports[task])) > 1


@pytest.fixture(scope="module")
def exports(data_dir: Path) -> dict[str, Path]:
    out = data_dir / "exports"
    return {name: export(name, data_dir, out / f"{name}.csv") for name in TASKS}


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="") as handle:
        return list(csv.reader(handle))


FORMAT_CASES = [
    (None, False, ""),
    (float("nan"), False, ""),
    (0.1 + 0.2, False, "0.3"),
    (1 / 3, False, "0.333333333333333"),
    (6.0, False, "6.0"),
    (-0.0, False, "-0.0"),
    (float("inf"), False, "inf"),
    (float("-inf"), False, "-inf"),
    (True, False, "True"),
    (False, False, "False"),
    (7, False, "7"),
    (decimal.Decimal("0.123"), False, "0.123"),
    (decimal.Decimal("NaN"), False, ""),
    (decimal.Decimal("Infinity"), False, ""),
    (dt.datetime(2150, 1, 2, 3, 4, 5), False, "2150-01-02 03:04:05"),
    (dt.datetime(2150, 1, 2, 3, 4, 5), True, "2150-01-02 03:04:05.000000"),
    (dt.datetime(2150, 1, 2, 3, 4, 5, 250000), True, "2150-01-02 03:04:05.250000"),
    (dt.date(2150, 1, 2), False, "2150-01-02"),
    (dt.timedelta(hours=1, seconds=30), False, "3630.0"),
    (dt.timedelta(days=-1), False, "-86400.0"),
    ("None", False, "None"),
]


@pytest.mark.parametrize("value, fractional, expected", FORMAT_CASES,
                         ids=[f"{type(v).__name__}-{e or 'empty'}" for v, _, e in FORMAT_CASES])
def test_format_value_renders(value: object, fractional: bool, expected: str) -> None:
    assert format_value(value, MICROSECONDS if fractional else SECONDS) == expected


def _sort_key(cell: str) -> tuple[int, object]:
    """A key cell as the export's ORDER BY sees it: numbers by value, text (and timestamps,
    written year first) by their characters, NULL last."""
    value = golden.canonical(cell)
    if value is None:
        return (2, "")
    return (0, value) if isinstance(value, float) else (1, value)


@pytest.mark.parametrize("task_name", sorted(TASKS))
def test_export_is_nonempty_and_keyed(task_name: str, exports: dict[str, Path]) -> None:
    task = TASKS[task_name]
    rows = _rows(exports[task_name])
    assert rows[0] == list(task.required_columns)
    body = rows[1:]
    assert body, f"{task_name}: empty reference"
    key_idx = [rows[0].index(k) for k in task.key_columns]
    keys = [tuple(r[i] for i in key_idx) for r in body]
    assert all(all(part != "" for part in key) for key in keys), "NULL in a key column"
    assert len(set(keys)) == len(keys), f"{task_name}: duplicate reference keys"


@pytest.mark.parametrize("task_name", sorted(TASKS))
def test_export_is_ordered_by_keys(task_name: str, exports: dict[str, Path]) -> None:
    """Rows ascend strictly by the key columns (numbers by value, not as text)."""
    rows = _rows(exports[task_name])
    key_idx = [rows[0].index(k) for k in TASKS[task_name].key_columns]
    keys = [tuple(_sort_key(r[i]) for i in key_idx) for r in rows[1:]]
    out_of_order = [(n, a, b) for n, (a, b) in enumerate(zip(keys, keys[1:], strict=False), start=2) if not a < b]
    assert out_of_order == [], f"{task_name}: rows not ascending by key at data rows {out_of_order[:3]}"


@pytest.mark.parametrize("task_name", sorted(TASKS))
def test_export_manifest_describes_the_file(task_name: str, exports: dict[str, Path]) -> None:
    task = TASKS[task_name]
    rows = _rows(exports[task_name])
    manifest = json.loads(manifest_path(exports[task_name]).read_text())
    assert manifest["row_count"] == len(rows) - 1
    assert manifest["columns"] == list(task.required_columns)
    assert manifest["sorted_by"] == list(task.key_columns)
    assert manifest["model"] == task.reference_model


@pytest.mark.parametrize("task_name", sorted(TASKS))
def test_export_manifest_hashes_recompute(task_name: str, exports: dict[str, Path], data_dir: Path) -> None:
    """The manifest's three SHA-256 sums are those of the CSV, the model's compiled SQL and the source database."""
    task = TASKS[task_name]
    manifest = json.loads(manifest_path(exports[task_name]).read_text())
    relation, _ = find_relation(data_dir, task.reference_model)
    source_db = database_path(data_dir, task.dataset)
    assert manifest["source_db"] == source_db.name
    assert manifest["csv_sha256"] == hashlib.sha256(exports[task_name].read_bytes()).hexdigest()
    assert manifest["compiled_sql_sha256"] == hashlib.sha256(relation.compiled_sql.encode()).hexdigest()
    assert manifest["source_db_sha256"] == hashlib.sha256(source_db.read_bytes()).hexdigest()


def test_golden_files_are_those_provenance_recorded() -> None:
    """Each golden file still has the SHA-256 scripts/regenerate_golden.py recorded when the original made it."""
    assert golden.file_hash_mismatches() == []


@pytest.mark.parametrize("task_name", sorted(TASKS))
def test_reference_equals_original_golden_truth(task_name: str, exports: dict[str, Path]) -> None:
    """Our reference holds exactly the original's keys and values on the golden data set
    (numbers to 15 significant digits, no tolerance); where the original's pick is an arbitrary
    tie, exactly the values it gives when left the pick our rule makes, or, for a tie no data
    resolves (the order its engine adds doubles in), one of the answers it can give."""
    task = TASKS[task_name]
    keys, values = list(task.key_columns), list(task.scored_columns)
    truth = golden.resolved_truth_rows(task_name) or golden.truth_rows(task_name)
    assert len(truth) > 1, f"{task_name}: the golden truth is empty"
    theirs = golden.keyed(truth, keys, values)
    ours = golden.keyed(_rows(exports[task_name]), keys, values)
    assert sorted(ours, key=repr) == sorted(theirs, key=repr), (
        f"{task_name}: keys differ: only ours {sorted(set(ours) - set(theirs), key=repr)[:5]}, "
        f"only the original's {sorted(set(theirs) - set(ours), key=repr)[:5]}")
    tie_keys = {tuple(golden.canonical(part) for part in key) for key in golden.tie_keys(task_name)}
    unresolvable = [tie.possible_answers for tie in original_ties_of(task_name) if tie.possible_answers]
    differing = {}
    for key, their_values in theirs.items():
        possible: dict[str, set[object]] = {}
        if key in tie_keys:
            row = dict(zip(values, their_values, strict=True))
            for answers in unresolvable:
                possible.update(answers(row))
        for column, mine, their in zip(values, ours[key], their_values, strict=True):
            if mine != their and mine not in possible.get(column, ()):
                differing.setdefault(column, []).append((key, mine, their))
    assert differing == {}, {c: (len(d), d[:3]) for c, d in differing.items()}


TIED_TASKS = sorted({task for tie in ORIGINAL_TIES for task in tie.tasks})


@pytest.mark.parametrize("task_name", TIED_TASKS)
def test_resolved_truth_differs_from_the_truth_only_where_the_original_picks(task_name: str) -> None:
    """Leaving the original only our rule's pick changes its ground truth at the ties' keys and
    columns and nowhere else: everywhere else the references are held to the recorded truth."""
    task = TASKS[task_name]
    keys, values = list(task.key_columns), list(task.scored_columns)
    truth = golden.keyed(golden.truth_rows(task_name), keys, values)
    resolved_rows = golden.resolved_truth_rows(task_name)
    assert resolved_rows is not None, f"{task_name}: no truth_resolved file; rerun scripts/regenerate_golden.py"
    resolved = golden.keyed(resolved_rows, keys, values)
    assert set(truth) == set(resolved)
    tie_keys = {tuple(golden.canonical(part) for part in key) for key in golden.tie_keys(task_name)}
    tied_columns = {c for tie in original_ties_of(task_name) for c in tie.columns[task_name]}
    outside = [(key, column, a, b) for key in truth
               for column, a, b in zip(values, truth[key], resolved[key], strict=True)
               if a != b and not (key in tie_keys and column in tied_columns)]
    assert outside == [], outside[:5]


@pytest.mark.parametrize("task_name", sorted(TASKS))
def test_float_rounding_is_within_tolerance(task_name: str, exports: dict[str, Path]) -> None:
    """Floats are written at 15 significant digits; that is exact enough only because no
    scored column holding fractional numbers is graded with tolerance 0."""
    task = TASKS[task_name]
    rows = _rows(exports[task_name])
    for column in task.scored_columns:
        if task.tolerance.get(column, 0) > 0:
            continue
        idx = rows[0].index(column)
        fractional = [r[idx] for r in rows[1:] if "." in r[idx] and not r[idx].endswith(".0")
                      and r[idx].replace(".", "", 1).lstrip("-").isdigit()]
        assert fractional == [], f"{task_name}.{column} is graded exactly but holds fractions"


def test_twins_export_identical_files(exports: dict[str, Path]) -> None:
    by_reference: dict[tuple[str, tuple[str, ...]], list[Task]] = defaultdict(list)
    for task in TASKS.values():
        by_reference[(task.reference_model, task.required_columns)].append(task)
    twins = [group for group in by_reference.values() if len(group) > 1]
    assert twins, "expected raw/standard twins sharing a reference"
    for group in twins:
        first = exports[group[0].name].read_bytes()
        for other in group[1:]:
            assert exports[other.name].read_bytes() == first, f"{group[0].name} != {other.name}"


def test_cli_export_matches_library(data_dir: Path, exports: dict[str, Path], tmp_path: Path) -> None:
    task_name = "mimic-sofa-24h"
    out = tmp_path / "sofa.csv"
    result = CliRunner().invoke(app, ["reference", "export", task_name, "--data-dir", str(data_dir),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == exports[task_name].read_bytes()
    assert manifest_path(out).exists()


def test_cli_export_without_build_fails_clearly(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["reference", "export", "mimic-sofa-24h", "--data-dir", str(tmp_path),
                                      "--out", str(tmp_path / "x.csv")])
    assert result.exit_code == 1
    assert "reference build" in result.output


@pytest.mark.parametrize("tie", ORIGINAL_TIES, ids=[t.name for t in ORIGINAL_TIES])
def test_original_ties_are_planted_and_move_few_keys(tie: OriginalTie) -> None:
    """Each arbitrary tie of the original reaches keys of the golden data set (committed in
    tests/fixtures/golden/ties.json), and resolving the ties changes the original's answer at fewer
    than half the keys of a task: the references are held to the recorded truth on most of them."""
    for task_name in tie.tasks:
        task = TASKS[task_name]
        assert set(tie.columns[task_name]) <= set(task.scored_columns), f"{tie.name}: unknown columns"
        assert golden.tie_keys(task_name), f"{tie.name}: the golden data plants no such tie for {task_name}"
        keys, values = list(task.key_columns), list(task.scored_columns)
        truth = golden.keyed(golden.truth_rows(task_name), keys, values)
        resolved = golden.keyed(golden.resolved_truth_rows(task_name) or [], keys, values)
        moved = [key for key in truth if truth[key] != resolved.get(key)]
        assert len(moved) <= len(truth) / 2, f"{tie.name}: {len(moved)} of {len(truth)} keys of {task_name}"


@pytest.fixture(scope="module")
def perturbed_graded(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """Our grades of the perturbed copies of the original's truth (tests/support/golden.py), graded
    against our references in one pass, with the SHA-256 of each output as made here."""
    from m4agent.grading.grade import grade_runs
    from m4agent.grading.loader import Run

    outputs = golden.perturbed_outputs(tmp_path_factory.mktemp("perturbed"))
    results = grade_runs([Run(run_id, TASKS[name], path) for run_id, name, path, _ in outputs], data_dir)
    return results, {run_id: digest for run_id, _, _, digest in outputs}


def test_perturbed_outputs_are_those_graded_by_m4bench(perturbed_graded: tuple[dict, dict]) -> None:
    """The perturbation generator still makes the outputs M4Bench judged (else rerun scripts/regenerate_golden.py)."""
    expected = {run_id: verdict["sha256"] for run_id, verdict in golden.perturbed_verdicts().items()}
    assert perturbed_graded[1] == expected


@pytest.mark.parametrize("run_id", sorted(golden.perturbed_verdicts()))
def test_perturbed_reference_grades_as_m4bench(run_id: str, perturbed_graded: tuple[dict, dict]) -> None:
    """A perturbed copy of the original's truth gets M4Bench's verdict when graded against our reference."""
    expected, ours = golden.perturbed_verdicts()[run_id], perturbed_graded[0][run_id]
    rounded = {c: round(float(r), 8) for c, r in ours["match_rates"].items()}
    assert (round(float(ours["reward"]), 8), ours["strict_pass"], rounded) == (
        expected["reward"], expected["strict_pass"], expected["match_rates"])
    assert (ours["agent_unique_keys"], ours["extra_keys"], round(float(ours["key_precision"]), 8)) == (
        expected["agent_unique_keys"], expected["extra_keys"], expected["key_precision"])


@pytest.fixture(scope="module")
def fuzzed_graded(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """Our grades of random compositions of edits of the original's truth (tests/support/golden.py),
    graded against our references in one pass, with the SHA-256 of each output as made here."""
    from m4agent.grading.grade import grade_runs
    from m4agent.grading.loader import Run

    outputs = golden.fuzzed_outputs(tmp_path_factory.mktemp("fuzzed"))
    results = grade_runs([Run(run_id, TASKS[name], path) for run_id, name, path, _ in outputs], data_dir)
    return results, {run_id: digest for run_id, _, _, digest in outputs}


def test_fuzzed_outputs_are_those_graded_by_m4bench(fuzzed_graded: tuple[dict, dict]) -> None:
    """The edit composer still makes the outputs M4Bench judged (else rerun scripts/regenerate_golden.py)."""
    assert fuzzed_graded[1] == {run_id: v["sha256"] for run_id, v in golden.fuzzed_verdicts().items()}


def test_fuzzed_outputs_reach_both_verdicts() -> None:
    """The random edits leave some outputs passing and fail others, so the comparison sees both."""
    verdicts = [v["strict_pass"] for v in golden.fuzzed_verdicts().values()]
    assert any(verdicts) and not all(verdicts)


@pytest.mark.parametrize("run_id", sorted(golden.fuzzed_verdicts()))
def test_fuzzed_reference_grades_as_m4bench(run_id: str, fuzzed_graded: tuple[dict, dict]) -> None:
    """A randomly edited copy of the original's truth gets M4Bench's verdict against our reference."""
    expected, ours = golden.fuzzed_verdicts()[run_id], fuzzed_graded[0][run_id]
    rounded = {c: round(float(r), 8) for c, r in ours["match_rates"].items()}
    assert (round(float(ours["reward"]), 8), ours["strict_pass"], rounded) == (
        expected["reward"], expected["strict_pass"], expected["match_rates"])
    assert (ours["extra_keys"], round(float(ours["key_precision"]), 8)) == (
        expected["extra_keys"], expected["key_precision"])
