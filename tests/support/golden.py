"""The golden files: the original M4Bench's results, committed as data (see scripts/regenerate_golden.py).

``tests/fixtures/golden/`` holds the original's ground truth of every task on one
small synthetic data set (its seed and size in ``provenance.json``), the same with its
arbitrary ties left only the picks our rules make (``truth_resolved/``), and the keys
where the original's pick is an arbitrary tie; ``tests/fixtures/grading/golden_verdicts.json``
holds M4Bench's verdicts on the grading corpus. This module reads them and says
when a value of ours is the same value as the original's.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
GOLDEN = TESTS / "fixtures" / "golden"
VERDICTS = TESTS / "fixtures" / "grading" / "golden_verdicts.json"

# The export writes floats at 15 significant digits, pandas at 17: a value is the
# same when both agree to 15 significant digits (no tolerance beyond the export's digits).
SIGNIFICANT_DIGITS = 15


@cache
def provenance() -> dict:
    """What made the golden files: original commit, versions, seed, size, file hashes."""
    return json.loads((GOLDEN / "provenance.json").read_text())


def truth_rows(task_name: str, golden_dir: Path = GOLDEN) -> list[list[str]]:
    """The original's ground truth of ``task_name`` (header first), as CSV text cells."""
    text = gzip.decompress((golden_dir / "truth" / f"{task_name}.csv.gz").read_bytes()).decode("utf-8")
    return [list(row) for row in csv.reader(io.StringIO(text))]


def resolved_truth_rows(task_name: str, golden_dir: Path = GOLDEN) -> list[list[str]] | None:
    """The original's ground truth of ``task_name`` with each of its arbitrary ties left only the pick
    our rule makes (tests/conformance_exceptions.py, ORIGINAL_TIES); None for a task no tie reaches."""
    path = golden_dir / "truth_resolved" / f"{task_name}.csv.gz"
    if not path.exists():
        return None
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    return [list(row) for row in csv.reader(io.StringIO(text))]


def tie_keys(task_name: str, golden_dir: Path = GOLDEN) -> set[tuple[str, ...]]:
    """Keys of ``task_name`` where the original's value is an arbitrary tie (tests/conformance_exceptions.py)."""
    ties = json.loads((golden_dir / "ties.json").read_text())
    return {tuple(key) for key in ties.get(task_name, [])}


def verdicts() -> dict[str, dict]:
    """M4Bench's verdict on each grading-corpus case."""
    return json.loads(VERDICTS.read_text())


def file_hash_mismatches() -> list[str]:
    """Golden files whose SHA-256 differs from the one provenance.json recorded when they were made."""
    recorded = provenance()["sha256"]
    return [path for path, digest in recorded.items()
            if hashlib.sha256((ROOT / path).read_bytes()).hexdigest() != digest]


def canonical(cell: str) -> object:
    """A CSV cell as a value: numbers (``1``, ``1.0``, ``1e0``) as one float at 15 significant
    digits, empty as None, anything else as its text."""
    if cell == "":
        return None
    try:
        number = float(cell)
    except ValueError:
        return cell
    if math.isnan(number):
        return None
    if math.isinf(number):
        return number
    return float(f"{number:.{SIGNIFICANT_DIGITS}g}")


def keyed(rows: list[list[str]], key_columns: list[str], columns: list[str]) -> dict[tuple, tuple]:
    """Key (canonical values) -> the canonical values of ``columns``; duplicate keys keep a list."""
    header = rows[0]
    key_idx = [header.index(k) for k in key_columns]
    value_idx = [header.index(c) for c in columns]
    out: dict[tuple, tuple] = {}
    for row in rows[1:]:
        key = tuple(canonical(row[i]) for i in key_idx)
        assert key not in out, f"duplicate key {key}"
        out[key] = tuple(canonical(row[i]) for i in value_idx)
    return out


PERTURBED = GOLDEN / "perturbed_verdicts.json"


def tie_tasks(golden_dir: Path = GOLDEN) -> set[str]:
    """Tasks with keys where the original's value is an arbitrary tie (left out of the perturbed verdicts:
    our reference and the original's truth may differ there, so one verdict cannot hold for both)."""
    return set(json.loads((golden_dir / "ties.json").read_text()))


def perturbed_outputs(out_dir: Path, golden_dir: Path = GOLDEN) -> list[tuple[str, str, Path, str]]:
    """Agent outputs made from the original's ground truth by support.perturb (every third
    perturbation of each task without ties, random.Random(3) per task), written under ``out_dir``.

    Returns (run id, task, path, SHA-256 of the text, or "missing" where no file is written) per output.
    """
    import random

    from m4agent.registry import all_tasks
    from support.perturb import perturbations

    outputs = []
    for name, task in sorted(all_tasks().items()):
        if name in tie_tasks(golden_dir):
            continue
        makers = perturbations(task, truth_rows(name, golden_dir), random.Random(3))
        for index in range(0, len(makers), 3):
            text = makers[index]()
            run_id = f"{name}.{index}"
            path = out_dir / run_id / "output.csv"
            path.parent.mkdir(parents=True, exist_ok=True)
            if text is not None:
                path.write_text(text, newline="")
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest() if text is not None else "missing"
            outputs.append((run_id, name, path, digest))
    return outputs


def perturbed_verdicts() -> dict[str, dict]:
    """M4Bench's verdict on each perturbed output (see perturbed_outputs)."""
    return json.loads(PERTURBED.read_text())


FUZZED = GOLDEN / "fuzzed_verdicts.json"
MALFORMED = GOLDEN / "malformed_verdicts.json"
FUZZ_PER_TASK = 3


def fuzzed_outputs(out_dir: Path, golden_dir: Path = GOLDEN) -> list[tuple[str, str, Path, str]]:
    """Agent outputs made from the original's ground truth by random compositions of edits
    (tests/fixtures/grading/fuzz.py: FUZZ_PER_TASK per task without ties, random.Random(2026) per
    task), written under ``out_dir``; (run id, task, path, SHA-256 of the text) per output."""
    import random

    from fixtures.grading.fuzz import compose

    from m4agent.registry import all_tasks

    outputs = []
    for name, task in sorted(all_tasks().items()):
        if name in tie_tasks(golden_dir):
            continue
        rng = random.Random(2026)
        rows = truth_rows(name, golden_dir)
        for index in range(FUZZ_PER_TASK):
            _, text = compose(task, rows, rng)
            run_id = f"{name}.fuzz{index}"
            path = out_dir / run_id / "output.csv"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, newline="")
            outputs.append((run_id, name, path, hashlib.sha256(text.encode("utf-8")).hexdigest()))
    return outputs


def fuzzed_verdicts() -> dict[str, dict]:
    """M4Bench's verdict on each fuzzed output (see fuzzed_outputs)."""
    return json.loads(FUZZED.read_text())


def malformed_verdicts() -> dict[str, dict]:
    """M4Bench's reward and strict verdict on each malformed output of
    tests/fixtures/grading/malformed.py (task fx-meld), under the pandas of provenance.json."""
    return json.loads(MALFORMED.read_text())
