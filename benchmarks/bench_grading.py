"""Grade a whole campaign in one dbt pass versus M4Bench's per-run pandas comparison.

    python benchmarks/bench_grading.py --data-dir DIR [--variants 20] [--work /tmp/bench]

DIR must hold built references (``m4agent quickstart`` or ``m4agent reference
build``). For every task, the reference is exported the way M4Bench exports
ground truth, and ``--variants`` perturbed copies are written as run folders
(``<task>/<variant>/output.csv`` + ``run.json``). The campaign is then graded
twice: ``grade_results_root`` (load + one ``dbt build`` + result.json files) and
the per-run baseline (``pandas_oracle.grade``: read both CSVs, compare with
pandas as the original does). Prints both times, the ratio and the largest
reward difference.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

from m4agent.grading import pandas_oracle
from m4agent.grading.grade import grade_results_root
from m4agent.paths import database_path, resolve_data_dir
from m4agent.registry import Task, all_tasks

Rows = list[list[str]]


def _read(path: Path) -> Rows:
    with path.open(newline="") as handle:
        return list(csv.reader(handle))


def _write(rows: Rows, delimiter: str = ",", line_end: str = "\n") -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=line_end).writerows(rows)
    return out.getvalue()


def _bump(value: str, by: float) -> str:
    try:
        return repr(float(value) + by)
    except ValueError:
        return value


def _variants(task: Task, rows: Rows, rng: random.Random) -> list[Callable[[], str | None]]:
    header, body = rows[0], rows[1:]
    scored = [c for c in task.scored_columns if c in header]
    first = header.index(scored[0]) if scored else 0
    tol = task.tolerance.get(header[first], 0) or 1.0

    def edit(fn: Callable[[int, list[str]], list[str]]) -> str:
        return _write([header, *[fn(i, list(r)) for i, r in enumerate(body)]])

    def set_col(row: list[str], position: int, value: str) -> list[str]:
        row[position] = value
        return row

    key_positions = [header.index(k) for k in task.key_columns]
    return [
        lambda: _write(rows),
        lambda: _write([header, *rng.sample(body, len(body))], line_end="\r\n"),
        lambda: _write([header, *[r for i, r in enumerate(body) if i % 10]]),
        lambda: _write([header, *body[: len(body) // 2]]),
        lambda: _write([header, *body, *[set_col(list(r), first, _bump(r[first], 3 * tol)) for r in body[::10]]]),
        lambda: _write([header, *body, *[set_col(list(r), key_positions[0], str(90_000_000 + i))
                                         for i, r in enumerate(body[::10])]]),
        lambda: edit(lambda i, r: [v + ".0" if j in key_positions and v.isdigit() else v for j, v in enumerate(r)]),
        lambda: edit(lambda i, r: set_col(r, first, "")),
        lambda: edit(lambda i, r: set_col(r, first, _bump(r[first], 2 * tol)) if i % 5 == 0 else r),
        lambda: edit(lambda i, r: set_col(r, first, _bump(r[first], tol / 2))),
        lambda: edit(lambda i, r: [v.lower() for v in r]),
        lambda: _write([[c for j, c in enumerate(r) if j != first] for r in rows]),
        lambda: _write([[c for j, c in enumerate(r) if j != key_positions[0]] for r in rows]),
        lambda: _write([header]),
        lambda: "",
        lambda: edit(lambda i, r: [v.replace(" ", "T") if len(v) == 19 and v[4] == "-" else v for v in r]),
        lambda: edit(lambda i, r: [v or "None" for v in r]),
        lambda: _write([[*header, "note"], *[[*r, f"n{i}"] for i, r in enumerate(body)]]),
        lambda: "\ufeff" + _write(rows),
        lambda: _write(rows, delimiter=";"),
    ]


def write_campaign(data_dir: Path, work: Path, variants: int, tasks: dict[str, Task]) -> dict[str, Path]:
    truth_dir = work / "truth"
    truth_dir.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(database_path(data_dir, "mimic-iv")), read_only=True)
    if database_path(data_dir, "eicu").exists():
        con.execute(f"ATTACH '{database_path(data_dir, 'eicu')}' AS eicu (READ_ONLY)")
    try:
        truth = {name: pandas_oracle.export_truth(con, task, truth_dir / f"{name}.csv")
                 for name, task in tasks.items()}
    finally:
        con.close()
    rng = random.Random(7)
    for name, task in tasks.items():
        makers = _variants(task, _read(truth[name]), rng)
        for index in range(variants):
            folder = work / "runs" / name / f"v{index:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "run.json").write_text(json.dumps({"task": name, "variant": index}))
            (folder / "output.csv").write_text(makers[index % len(makers)](), newline="")
            (folder / "result.json").unlink(missing_ok=True)
    return truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--variants", type=int, default=20)
    parser.add_argument("--work", type=Path, default=Path("/tmp/m4agent-bench-grading"))
    args = parser.parse_args()
    data_dir = resolve_data_dir(args.data_dir)
    tasks = all_tasks()
    truth = write_campaign(data_dir, args.work, args.variants, tasks)
    runs = sorted((args.work / "runs").glob("*/*/run.json"))
    print(f"{len(runs)} outputs ({len(tasks)} tasks x {args.variants} variants)")

    start = time.perf_counter()
    ours = grade_results_root(args.work / "runs", data_dir, force=True)
    one_pass = time.perf_counter() - start

    start = time.perf_counter()
    baseline = {}
    for run_json in runs:
        task = tasks[json.loads(run_json.read_text())["task"]]
        run_id = run_json.parent.relative_to(args.work / "runs").as_posix()
        baseline[run_id] = pandas_oracle.grade(task, run_json.parent / "output.csv", truth[task.name])
    per_run = time.perf_counter() - start

    worst = max(abs(ours[r]["reward"] - baseline[r]["reward"]) for r in baseline)
    strict_same = sum(ours[r]["strict_pass"] == baseline[r]["strict_pass"] for r in baseline)
    print(f"one pass (load + dbt build + result.json): {one_pass:8.1f} s")
    print(f"per-run pandas baseline:                   {per_run:8.1f} s")
    print(f"ratio (baseline / one pass):               {per_run / one_pass:8.2f}x")
    print(f"largest reward difference: {worst:.2e}; strict verdicts equal on {strict_same}/{len(baseline)}")


if __name__ == "__main__":
    main()
