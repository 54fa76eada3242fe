"""Regenerate the golden files produced by the original M4Bench code, and diff them with the committed ones.

The golden files let a clean clone check every reference and every grading rule
against the original's results without the original's repository. They are made
once by the original's own code, read from a checkout of ``hannesill/m4`` named
by ``$M4_ORIGINAL_REPO`` (a bare mirror works):

- ``tests/fixtures/golden/truth/<task>.csv.gz``: M4Bench's ground-truth SQL of each
  of the 28 tasks run on the synthetic MIMIC-IV (with m4-infra's ``mimiciv_derived``)
  or eICU of ``SEED``/``PATIENTS`` (edge cases on), sorted and written by pandas as
  the original writes ground truth;
- ``tests/fixtures/golden/truth_resolved/<task>.csv.gz``: the same ground truth of each task
  an arbitrary tie of the original can reach, with every such tie left only the pick our
  rule makes (``tests/conformance_exceptions.py``, ``ORIGINAL_TIES``): the one of the
  original's possible answers our references must give;
- ``tests/fixtures/golden/ties.json``: the keys of each task where the original's
  pick is an arbitrary tie;
- ``tests/fixtures/grading/golden_verdicts.json``: M4Bench's verdict (reward, match
  rates, strict pass, key metrics) on every case of the grading corpus
  (``tests/fixtures/grading/corpus.py``);
- ``tests/fixtures/golden/perturbed_verdicts.json``: M4Bench's verdict on perturbed copies
  of the ground truth of every task without ties (``tests/support/perturb.py``, see
  ``tests/support/golden.py``), with each output's SHA-256;
- ``tests/fixtures/golden/fuzzed_verdicts.json``: the same for random compositions of edits
  (``tests/fixtures/grading/fuzz.py``);
- ``tests/fixtures/golden/malformed_verdicts.json``: M4Bench's reward and strict verdict on the
  malformed outputs of ``tests/fixtures/grading/malformed.py``;
- ``tests/fixtures/golden/original_facts.json`` and ``tests/fixtures/golden/eicu/``: the facts
  other tests take from the original (task fields, instruction-line digests, urine cell paths,
  what our harness makes of its task tree, eICU ground truth on three more data sets; see
  ``tests/support/original_facts.py``);
- ``tests/fixtures/golden/provenance.json``: what made them (original commit,
  m4-infra, pandas and DuckDB versions, seed, size, SHA-256 of each file).

Usage::

    M4_ORIGINAL_REPO=/path/to/m4 python3 scripts/regenerate_golden.py           # regenerate, diff, exit 1 if different
    M4_ORIGINAL_REPO=/path/to/m4 python3 scripts/regenerate_golden.py --write   # and replace the committed files

The original's own ground truth is not reproducible at its arbitrary ties (ORIGINAL_TIES: its
pick moves with row order and threads, even from one run to the next), so a regenerated
truth counts as identical when it differs from the committed one only in a tie's columns
at the tie's keys; ``truth_resolved/`` and everything else must match byte for byte.

Exit codes: 0 identical (or written), 1 different, 2 the original's repository is not available.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
GOLDEN = TESTS / "fixtures" / "golden"
VERDICTS = TESTS / "fixtures" / "grading" / "golden_verdicts.json"
SEED = 7
PATIENTS = 60


def _gzip_bytes(text: str) -> bytes:
    """Gzip with no name and time in the header, so the same text gives the same bytes."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="", compresslevel=9) as handle:
        handle.write(text.encode("utf-8"))
    return buffer.getvalue()


def _original_commit() -> str:
    import original_ground_truth as original

    return subprocess.run(["git", "-C", str(original.ORIGINAL_REPO), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()


def _truths(work: Path, out: Path) -> dict[str, list[list[str]]]:
    """Write every task's original ground truth under ``out/truth``; return the tie keys per task."""
    import original_ground_truth as original
    from conformance_exceptions import original_tie_keys, original_ties_of

    from m4agent.data.synth import synthesize
    from m4agent.paths import database_path
    from m4agent.registry import all_tasks

    for dataset in ("mimic-iv", "eicu"):
        synthesize(dataset, work, patients=PATIENTS, seed=SEED, edge_cases=True)
    mimic = original.materialize_m4_derived(database_path(work, "mimic-iv"), work / "original" / "mimic_iv.duckdb")
    resolved = original.materialize_m4_derived(database_path(work, "mimic-iv"), work / "resolved" / "mimic_iv.duckdb",
                                               resolve_ties=True)
    eicu = database_path(work, "eicu")
    for folder in ("truth", "truth_resolved"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    ties: dict[str, list[list[str]]] = {}
    for name in sorted(all_tasks()):
        csv_path = work / "ground_truth" / f"{name}.csv"
        original.run_ground_truth(original.ground_truth_database(name, mimic, eicu),
                                  original.ground_truth_alias(name), name, csv_path)
        (out / "truth" / f"{name}.csv.gz").write_bytes(_gzip_bytes(csv_path.read_text()))
        if not original_ties_of(name):
            continue
        resolved_path = work / "ground_truth_resolved" / f"{name}.csv"
        original.run_ground_truth(resolved, original.ground_truth_alias(name), name, resolved_path)
        (out / "truth_resolved" / f"{name}.csv.gz").write_bytes(_gzip_bytes(resolved_path.read_text()))
        keys: set[tuple[str, ...]] = set()
        for tie in original_ties_of(name):
            keys |= original_tie_keys(tie, mimic)
        if keys:
            ties[name] = [list(key) for key in sorted(keys)]
    return ties


def _verdicts(work: Path) -> dict[str, dict]:
    """M4Bench's verdict on every grading-corpus case."""
    from fixtures.grading import original
    from fixtures.grading.corpus import build_corpus
    from fixtures.grading.fixture import graded_environment

    _, tasks, truth = graded_environment(work)
    verdicts = {}
    for case, task, path in build_corpus(work / "corpus", truth):
        verdict = original.evaluate(tasks[task].path, path, truth[task])
        verdicts[case] = {"task": task, **{k: verdict[k] for k in (
            "reward", "strict_pass", "match_rates", "key_precision", "extra_keys", "agent_unique_keys")}}
    return verdicts


def _verdicts_on_truth(outputs: Iterable[tuple[str, str, Path, str]], work: Path, golden_dir: Path) -> dict[str, dict]:
    """M4Bench's verdict on each output of ``outputs`` ((run id, task, path, sha256) rows), graded
    against the original's ground truth of its task."""
    from fixtures.grading import original

    from m4agent.registry import all_tasks

    tasks = all_tasks()
    verdicts = {}
    for run_id, name, path, digest in outputs:
        truth = work / f"{name}.truth.csv"
        if not truth.exists():
            truth.write_bytes(gzip.decompress((golden_dir / "truth" / f"{name}.csv.gz").read_bytes()))
        verdict = original.evaluate(tasks[name].path, path, truth)
        verdicts[run_id] = {"task": name, "sha256": digest, **{k: verdict[k] for k in (
            "reward", "strict_pass", "match_rates", "key_precision", "extra_keys", "agent_unique_keys")}}
    return verdicts


def _perturbed_verdicts(work: Path, golden_dir: Path) -> dict[str, dict]:
    """M4Bench's verdict on each perturbed copy of the original's ground truth (tests/support/golden.py)."""
    from support import golden

    return _verdicts_on_truth(golden.perturbed_outputs(work, golden_dir), work, golden_dir)


def _fuzzed_verdicts(work: Path, golden_dir: Path) -> dict[str, dict]:
    """M4Bench's verdict on each random composition of edits of the original's ground truth
    (tests/fixtures/grading/fuzz.py, see tests/support/golden.py)."""
    from support import golden

    return _verdicts_on_truth(golden.fuzzed_outputs(work, golden_dir), work, golden_dir)


def _malformed_verdicts(work: Path) -> dict[str, dict]:
    """M4Bench's reward and strict verdict on each malformed output (tests/fixtures/grading/malformed.py)."""
    from fixtures.grading import original
    from fixtures.grading.fixture import graded_environment
    from fixtures.grading.malformed import cases

    _, tasks, truth = graded_environment(work)
    verdicts = {}
    for case, content in cases(truth["fx-meld"]).items():
        path = work / "cases" / case / "output.csv"
        path.parent.mkdir(parents=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        verdict = original.evaluate(tasks["fx-meld"].path, path, truth["fx-meld"])
        verdicts[case] = {"reward": round(verdict["reward"], 6), "strict_pass": verdict["strict_pass"]}
    return verdicts


def _original_facts(work: Path, golden_dir: Path) -> None:
    """The original's task facts, instruction-line digests, urine cell paths, what our harness makes
    of its task tree, and its eICU ground truth on more data sets (tests/support/original_facts.py)."""
    from support import original_facts

    _write_json(golden_dir / "original_facts.json", original_facts.make_facts(work))
    original_facts.write_eicu_truths(work / "eicu", golden_dir / "eicu")


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def regenerate(out: Path) -> None:
    """Write a complete golden set under ``out`` (``golden/`` and ``golden_verdicts.json``)."""
    with tempfile.TemporaryDirectory(prefix="m4agent-golden-") as scratch:
        work = Path(scratch)
        ties = _truths(work / "references", out / "golden")
        (out / "golden" / "ties.json").write_text(json.dumps(ties, indent=1, sort_keys=True) + "\n")
        verdicts = _verdicts(work / "grading")
        perturbed = _perturbed_verdicts(work / "perturbed", out / "golden")
        _write_json(out / "golden" / "perturbed_verdicts.json", perturbed)
        _write_json(out / "golden" / "fuzzed_verdicts.json", _fuzzed_verdicts(work / "fuzzed", out / "golden"))
        _write_json(out / "golden" / "malformed_verdicts.json", _malformed_verdicts(work / "malformed"))
        _original_facts(work / "facts", out / "golden")
    (out / "golden_verdicts.json").write_text(json.dumps(verdicts, indent=1, sort_keys=True) + "\n")
    files = sorted(p for p in (out / "golden").rglob("*") if p.is_file()) + [out / "golden_verdicts.json"]
    provenance = {
        "made_by": "scripts/regenerate_golden.py",
        "original_repository": "hannesill/m4",
        "original_commit": _original_commit(),
        "m4_infra": metadata.version("m4-infra"),
        "pandas": metadata.version("pandas"),
        "duckdb": metadata.version("duckdb"),
        "seed": SEED,
        "patients": PATIENTS,
        "edge_cases": True,
        "sha256": {_committed(out, p).relative_to(ROOT).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                   for p in files},
    }
    (out / "golden" / "provenance.json").write_text(json.dumps(provenance, indent=1, sort_keys=True) + "\n")


def _committed(out: Path, path: Path) -> Path:
    """Where a regenerated file lives in the repository."""
    if path.name == "golden_verdicts.json":
        return VERDICTS
    return GOLDEN / path.relative_to(out / "golden")


def _text(path: Path) -> list[str]:
    data = path.read_bytes() if path.exists() else b""
    if path.suffix == ".gz" and data:
        data = gzip.decompress(data)
    return data.decode("utf-8").splitlines(keepends=True)


def _same_up_to_ties(out: Path, fresh: Path, committed: Path) -> bool:
    """True when ``fresh`` and ``committed`` are the same ground truth of a task up to the original's
    arbitrary ties: the original's pick there moves from run to run (ORIGINAL_TIES), so only the
    tied columns at the tied keys may differ, each run giving one of its possible answers."""
    import csv

    from conformance_exceptions import original_ties_of
    from support import golden

    if fresh.parent.name != "truth":
        return False
    task_name = fresh.name.removesuffix(".csv.gz")
    ties = original_ties_of(task_name)
    if not ties:
        return False
    from m4agent.registry import all_tasks

    task = all_tasks()[task_name]
    keys, values = list(task.key_columns), list(task.scored_columns)
    tie_keys = {tuple(golden.canonical(part) for part in key) for key in golden.tie_keys(task_name, out / "golden")}
    tied = [values.index(c) for tie in ties for c in tie.columns[task_name]]

    def untied(path: Path) -> dict[tuple, tuple]:
        rows = list(csv.reader(io.StringIO("".join(_text(path)))))
        return {key: tuple(None if key in tie_keys and i in tied else v for i, v in enumerate(row))
                for key, row in golden.keyed(rows, keys, values).items()}

    return untied(fresh) == untied(committed)


def diff(out: Path) -> list[str]:
    """Differences between the regenerated set under ``out`` and the committed files (provenance excepted)."""
    fresh = sorted(p for p in (out / "golden").rglob("*") if p.is_file() and p.name != "provenance.json")
    fresh.append(out / "golden_verdicts.json")
    committed = {p for p in GOLDEN.rglob("*") if p.is_file() and p.name != "provenance.json"}
    problems = []
    for path in fresh:
        target = _committed(out, path)
        committed.discard(target)
        if not target.exists():
            problems.append(f"new file (not committed): {target.relative_to(ROOT)}")
        elif _text(path) != _text(target) and not _same_up_to_ties(out, path, target):
            lines = list(difflib.unified_diff(_text(target), _text(path), str(target.relative_to(ROOT)),
                                              "regenerated", n=0))
            problems.append("".join(lines[:40]))
    problems.extend(f"committed file no longer produced: {p.relative_to(ROOT)}" for p in sorted(committed))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the committed golden files")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(TESTS)]
    import original_ground_truth as original

    try:
        available = original.mirror_available()
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 2
    if not available:
        print("the original M4Bench repository is needed: set M4_ORIGINAL_REPO to a clone of hannesill/m4",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="m4agent-golden-out-") as scratch:
        out = Path(scratch)
        regenerate(out)
        if args.write:
            shutil.rmtree(GOLDEN, ignore_errors=True)
            shutil.copytree(out / "golden", GOLDEN)
            shutil.copyfile(out / "golden_verdicts.json", VERDICTS)
            print(f"wrote {GOLDEN.relative_to(ROOT)} and {VERDICTS.relative_to(ROOT)}")
            return 0
        problems = diff(out)
    for problem in problems:
        print(problem)
    print("golden files: " + ("identical to the original's output" if not problems
                              else f"{len(problems)} difference(s); rerun with --write to replace them"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
