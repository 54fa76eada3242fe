"""Grade a whole campaign in one dbt pass versus M4Bench's per-run pandas comparison.

    python benchmarks/bench_grading.py --data-dir DIR [--variants 20] [--work /tmp/bench]

DIR must hold built references (``m4agent quickstart`` or ``m4agent reference
build``). For every task, the reference is exported the way M4Bench exports
ground truth (a gzipped CSV, ``truth/<task>.csv.gz``), and ``--variants`` perturbed copies are written as run folders
(``<task>/<variant>/output.csv`` + ``run.json``). The campaign is then graded
with ``grade_results_root`` (load + one ``dbt build`` + result.json files),
``1 + --steady`` times: the first call renders the references (as M4Bench
exports its ground truth; the benchmark forgets any rendering kept from an
earlier call) and may include dbt's full parse of the project (once per data
directory); the others are the steady state, reusing both (``truth_cache``),
and the ratio uses their median. Then the
per-run baseline: every output read with its gzipped ground truth and compared
with pandas, one run at a time. ``--baseline original`` (the default when the
read-only mirror of hannesill/m4 is present, see tests/fixtures/grading/original.py)
times M4Bench's own grading code; ``--baseline oracle`` times
``pandas_oracle.grade`` (``tests/support``), this project's restatement of it, which skips the
original's truth duplicate check and mismatch examples and so runs a little
faster. Prints the times (each call's wall time, and the part dbt reports in its
log, ``DIR/dbt/logs/dbt.log``), the ratios, the largest reward difference and the
baseline's time on the tasks with the most rows.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the oracle and perturbations

from support import pandas_oracle  # noqa: E402
from support.perturb import perturbations, read_rows  # noqa: E402

from m4agent.dbt import duckdb_session  # noqa: E402
from m4agent.dbt.runner import artefact_dir  # noqa: E402
from m4agent.grading import truth_cache  # noqa: E402
from m4agent.grading.results_tree import grade_results_root  # noqa: E402
from m4agent.paths import resolve_data_dir  # noqa: E402
from m4agent.registry import Task, all_tasks  # noqa: E402

# dbt's closing line, e.g. "Finished running 28 table models ... in 0 hours 0 minutes and 10.85 seconds (10.85s)."
_DBT_FINISHED = re.compile(r"Finished running .* \((\d+(?:\.\d+)?)s\)")


def dbt_seconds(data_dir: Path, log_offset: int) -> float | None:
    """The run time dbt reported in its log after ``log_offset`` (the last such line), if any."""
    log = artefact_dir(data_dir) / "logs" / "dbt.log"
    if not log.exists():
        return None
    with log.open("rb") as handle:
        handle.seek(log_offset)
        found = _DBT_FINISHED.findall(handle.read().decode("utf-8", "replace"))
    return float(found[-1]) if found else None


def log_size(data_dir: Path) -> int:
    log = artefact_dir(data_dir) / "logs" / "dbt.log"
    return log.stat().st_size if log.exists() else 0


def write_campaign(data_dir: Path, work: Path, variants: int, tasks: dict[str, Task]) -> dict[str, Path]:
    truth_dir = work / "truth"
    truth_dir.mkdir(parents=True, exist_ok=True)
    con = duckdb_session.connect(data_dir, read_only=True)
    try:
        # gzipped, as M4Bench ships its ground truth and its harness reads it for every run
        truth = {name: pandas_oracle.export_truth(con, task, truth_dir / f"{name}.csv.gz")
                 for name, task in tasks.items()}
    finally:
        con.close()
    rng = random.Random(7)
    for name, task in tasks.items():
        makers = perturbations(task, read_rows(truth[name]), rng)
        for index in range(variants):
            folder = work / "runs" / name / f"v{index:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "run.json").write_text(json.dumps({"task": name, "variant": index}))
            (folder / "output.csv").write_text(makers[index % len(makers)](), newline="")
            (folder / "result.json").unlink(missing_ok=True)
    return truth


def per_run_grader(choice: str) -> tuple[str, Callable[[Task, Path, Path], dict[str, Any]]]:
    """The baseline's name and its one-run grader (task, output CSV, truth CSV) -> reward and verdict."""
    from fixtures.grading import original

    if choice == "original" or (choice == "auto" and original.available()):
        if not original.available():
            raise SystemExit(f"--baseline original needs the mirror of hannesill/m4 at {original.MIRROR}")
        return "M4Bench's own code", lambda task, output, truth: original.evaluate(task.path, output, truth)
    return "pandas_oracle", pandas_oracle.grade


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--variants", type=int, default=20)
    parser.add_argument("--work", type=Path, default=Path("/tmp/m4agent-bench-grading"))
    parser.add_argument("--baseline", choices=["auto", "original", "oracle"], default="auto",
                        help="M4Bench's own code (needs its mirror) or pandas_oracle; auto: the original when present")
    parser.add_argument("--steady", type=int, default=3,
                        help="steady calls after the first; the ratio uses their median (a call lasts half a minute, "
                             "the baseline minutes, so one call is the more exposed to a busy machine)")
    args = parser.parse_args()
    baseline_name, grade_one = per_run_grader(args.baseline)
    data_dir = resolve_data_dir(args.data_dir)
    tasks = all_tasks()
    truth = write_campaign(data_dir, args.work, args.variants, tasks)
    runs = sorted((args.work / "runs").glob("*/*/run.json"))
    print(f"{len(runs)} outputs ({len(tasks)} tasks x {args.variants} variants)")

    con = duckdb_session.connect(data_dir)
    try:  # the first call renders the references, as a first grading of a data directory does
        truth_cache.forget(con)
    finally:
        con.close()
    passes: list[float] = []
    in_dbt: list[float | None] = []
    for _ in range(1 + max(args.steady, 1)):
        offset = log_size(data_dir)
        start = time.perf_counter()
        ours = grade_results_root(args.work / "runs", data_dir, force=True)
        passes.append(time.perf_counter() - start)
        in_dbt.append(dbt_seconds(data_dir, offset))
    first_pass, steady = passes[0], passes[1:]
    one_pass = statistics.median(steady)

    start = time.perf_counter()
    baseline = {}
    by_task: dict[str, float] = {}
    for run_json in runs:
        task = tasks[json.loads(run_json.read_text())["task"]]
        run_id = run_json.parent.relative_to(args.work / "runs").as_posix()
        run_start = time.perf_counter()
        baseline[run_id] = grade_one(task, run_json.parent / "output.csv", truth[task.name])
        by_task[task.name] = by_task.get(task.name, 0.0) + time.perf_counter() - run_start
    per_run = time.perf_counter() - start

    worst = max(abs(ours[r]["reward"] - baseline[r]["reward"]) for r in baseline)
    strict_same = sum(ours[r]["strict_pass"] == baseline[r]["strict_pass"] for r in baseline)
    rates_same = sum(ours[r]["match_rates"].keys() == baseline[r]["match_rates"].keys()
                     and all(abs(rate - ours[r]["match_rates"][column]) <= 1e-6
                             for column, rate in baseline[r]["match_rates"].items())
                     for r in baseline)
    print(f"one pass, first call (renders the truth):  {first_pass:8.1f} s")
    print(f"one pass (load + dbt build + result.json): {one_pass:8.1f} s "
          f"(median of {len(steady)} steady calls: {', '.join(f'{value:.1f}' for value in steady)} s)")
    for index, (seconds, dbt) in enumerate(zip(passes, in_dbt, strict=True)):
        name = "first" if index == 0 else f"steady {index}"
        dbt_part = f"dbt's run {dbt:.1f} s (its log)" if dbt is not None else "dbt's run not in its log"
        print(f"  {name:8s}: {seconds:.1f} s, of which {dbt_part}")
    print(f"per-run baseline ({baseline_name + '):':24s}  {per_run:8.1f} s")
    print(f"ratio (baseline / one pass):               {per_run / one_pass:8.2f}x "
          f"(slowest steady call {per_run / max(steady):.2f}x, first call {per_run / first_pass:.2f}x)")
    print(f"largest reward difference: {worst:.2e}; strict verdicts equal on {strict_same}/{len(baseline)}, "
          f"match rates on {rates_same}/{len(baseline)}")
    rows = {result["task"]: result["agent_rows"] for result in ours.values()}
    print("baseline time of the tasks with the most rows (rows per output, baseline seconds for all variants):")
    for name in sorted(by_task, key=lambda n: -by_task[n])[:3]:
        print(f"  {name:36s} {rows.get(name, 0):>9,d} rows  {by_task[name]:7.1f} s")


if __name__ == "__main__":
    main()
