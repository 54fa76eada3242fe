"""`m4agent reference build` as a user runs it versus the original pipeline: wall time and peak memory.

Usage (one command; needs ``$M4_ORIGINAL_REPO``, a clone or bare mirror of hannesill/m4, and the
dev extras, which bring m4-infra)::

    python benchmarks/bench_derived.py [--stays 1000 3000 10000 20000] [--eicu-patients 1000]

For each size, synthetic MIMIC-IV is written once (the patient count is calibrated on a
one-cycle probe so the ICU stay count lands near the target; the actual count is printed),
with a synthetic eICU of a fixed size beside it (``--eicu-patients``: the size axis is
MIMIC-IV's). Each side gets its own copy of both databases and runs as one subprocess:

- ``original``: m4-infra's ``materialize_all("mimic-iv", copy)`` (the 63 mimic-code SQL
  files in order on one connection), then M4Bench's 17 ground-truth SQL files
  (``benchmark/ground_truth/<alias>.sql`` of every task, the two eICU ones on the eICU
  copy), each run as the original's ``ground_truth.py`` runs it: one statement, the rows
  sorted by the task's key columns and written as CSV (uncompressed, as the test suite
  does; the original gzips);
- ``ours``: the ``m4agent reference build --data-dir COPY`` command line, default options
  (its data tests included), exactly as a user types it after ``m4agent data synth``.

``--repeat N`` runs each side N times per size, alternating which side runs first, and reports
the median time and peak memory of each side (wall times on a shared machine vary by a third
from run to run, the original's as much as ours).

Seconds are the subprocess's wall time (Python's start and imports included on both
sides); peak memory is that subprocess's own maximum resident set (``wait4``'s rusage), so
each side is measured alone. Both sides use DuckDB's defaults and ours its profile's
(threads = cores). Before the sizes, one ``reference build`` runs on the calibration probe:
the first build on a machine saves dbt's parse, which every later build reuses (see
docs/scale.md); the warm-up's time is printed as the cold start.

After the sizes: ours/original ratio per size, and a least-squares fit of time ~ a + b * stays
per side over all measured sizes (at least two), projected to full MIMIC-IV (94,458 ICU stays,
433 M chartevents rows; the synthetic data has fewer chartevents per stay than real data, so a
second projection scales by chartevents rows). The machine's load average is printed next to
every figure: wall times on a shared machine move with it, so compare sides measured at
similar load.

``--per-model`` finds where ours spends more than the original, concept by concept: ours runs
with ``--threads 1`` (one node at a time, so each node's time in ``run_results.json`` is its
own), the original's per-table seconds come from ``materialize_all``'s own events (it reports
each table it creates), and each size prints the models whose time exceeds the original's for
the same concept the most (``int_mimiciv_<category>__<name>`` against m4-infra's ``<name>``,
``ref_<task>`` against the ground-truth SQL file; a model without a counterpart, such as the
narrow event tables, counts against zero).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBE_PATIENTS = 80  # one full cycle of the MIMIC-IV generator's scenarios x grades
FULL_STAYS = 94_458  # MIMIC-IV 3.1 icustays
FULL_CHARTEVENTS = 432_997_491  # MIMIC-IV 3.1 chartevents rows


def _load() -> str:
    return "load " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def _checkout_env() -> dict[str, str]:
    """The environment with this checkout first on PYTHONPATH: both sides run its code, whatever
    checkout the installed `m4agent` points at."""
    paths = [str(REPO), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _run(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run ``argv``; (wall seconds, its peak resident MiB, its stdout). Exits on failure."""
    env = env or _checkout_env()
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=env, cwd=REPO)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            sys.exit(f"{' '.join(argv[:4])} ... failed ({process.returncode}):\n{err.read()[-4000:]}")
        return seconds, usage.ru_maxrss / 1024, out.read()


# ---- children (run as `bench_derived.py --child KIND ...`) -------------------------------------------


def _child_synth(mimic_patients: int, eicu_patients: int, seed: int, data_dir: str) -> dict:
    import duckdb

    from m4agent.data.synth import synthesize
    from m4agent.paths import database_path

    start = time.perf_counter()
    synthesize("mimic-iv", Path(data_dir), patients=mimic_patients, seed=seed)
    if eicu_patients:
        synthesize("eicu", Path(data_dir), patients=eicu_patients, seed=seed)
    seconds = time.perf_counter() - start
    con = duckdb.connect(str(database_path(data_dir, "mimic-iv")), read_only=True)
    try:
        stays = con.execute("SELECT count(*) FROM mimiciv_icu.icustays").fetchone()[0]
        chart = con.execute("SELECT count(*) FROM mimiciv_icu.chartevents").fetchone()[0]
    finally:
        con.close()
    return {"seconds": seconds, "stays": stays, "chartevents": chart}


def _original_module() -> object:
    """tests/original_ground_truth.py: the original's task definitions and SQL, read from the mirror."""
    sys.path.insert(0, str(REPO / "tests"))
    import original_ground_truth

    return original_ground_truth


def _ground_truths() -> list[tuple[str, str, str]]:
    """(alias, database source, a task graded against it) for each distinct ground-truth SQL file."""
    from m4agent.registry import all_tasks

    original = _original_module()
    found: dict[tuple[str, str], str] = {}
    for name in sorted(all_tasks()):
        source = original.original_task(name).get("database", {}).get("source", "mimic-iv")
        found.setdefault((original.ground_truth_alias(name), source), name)
    return [(alias, source, task) for (alias, source), task in sorted(found.items())]


def _child_original(data_dir: str) -> dict:
    """m4-infra's materialize_all, then every ground-truth SQL file: the original pipeline."""
    import duckdb
    from m4.core.derived.materializer import materialize_all
    from m4.services.events import EventReporter

    from m4agent.paths import database_path

    class TableSeconds(EventReporter):
        """Keeps the seconds materialize_all reports for each table it creates."""

        def __init__(self) -> None:
            super().__init__()
            self.seconds: dict[str, float] = {}

        def emit(self, event: str, **fields: object) -> None:
            if event == "derived_table_completed":
                self.seconds[str(fields["table"])] = float(fields["elapsed_seconds"])  # type: ignore[arg-type]

    original = _original_module()
    truths = _ground_truths()
    sql = {alias: original.original_file(f"benchmark/ground_truth/{alias}.sql") for alias, _, _ in truths}
    root = Path(data_dir)
    start = time.perf_counter()
    reporter = TableSeconds()
    tables = materialize_all("mimic-iv", database_path(root, "mimic-iv"), event_reporter=reporter)
    derived = time.perf_counter() - start
    out = root / "ground_truth"
    out.mkdir(exist_ok=True)
    seconds: dict[str, float] = {}
    for alias, source, task in truths:
        began = time.perf_counter()
        con = duckdb.connect(str(database_path(root, "eicu" if source == "eicu" else "mimic-iv")), read_only=True)
        try:
            frame = con.execute(sql[alias]).df()
        finally:
            con.close()
        keys = [c for c in original.original_task(task)["evaluation"].get("key_columns", []) if c in frame]
        order = [*keys, *[c for c in frame.columns if c not in keys]]
        if order:
            frame = frame.sort_values(order, kind="mergesort", na_position="last")
        frame.to_csv(out / f"{alias}.csv", index=False)
        seconds[alias] = time.perf_counter() - began
    return {"derived_tables": len(tables), "derived_seconds": derived, "ground_truth_seconds": seconds,
            "table_seconds": reporter.seconds, "inner_seconds": time.perf_counter() - start}


# ---- sides ---------------------------------------------------------------------------------------------


def _child(kind: str, *args: str) -> tuple[float, float, dict]:
    seconds, peak, stdout = _run([sys.executable, __file__, "--child", kind, *args])
    return seconds, peak, json.loads(stdout.strip().splitlines()[-1])


def _m4agent() -> list[str]:
    """The `m4agent` command as installed (the console script), else the module's app."""
    found = shutil.which("m4agent")
    return [found] if found else [sys.executable, "-c", "from m4agent.cli import app; app()"]


def _ours(data_dir: Path, extra: list[str]) -> tuple[float, float, dict]:
    """`m4agent reference build --data-dir DIR` as a user runs it; what dbt's run results say."""
    env = {**_checkout_env(), "COLUMNS": "120"}
    seconds, peak, _ = _run([*_m4agent(), "reference", "build", "--data-dir", str(data_dir), *extra], env=env)
    return seconds, peak, _run_results(data_dir)


def _utc(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _run_results(data_dir: Path) -> dict:
    """From DIR/dbt/target/run_results.json: node counts by kind, the window from the first node's start
    to the last node's end, and the slowest nodes."""
    path = data_dir / "dbt" / "target" / "run_results.json"
    if not path.exists():
        return {}
    document = json.loads(path.read_text())
    results = document["results"]
    kinds: dict[str, int] = {}
    starts, ends = [], []
    for result in results:
        kind = result["unique_id"].split(".")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
        for step in result.get("timing", []):
            if step.get("started_at") and step.get("completed_at"):
                starts.append(_utc(step["started_at"]))
                ends.append(_utc(step["completed_at"]))
    window = (max(ends) - min(starts)).total_seconds() if starts else 0.0
    slowest = sorted(results, key=lambda r: r["execution_time"], reverse=True)[:5]
    return {"nodes": len(results), "kinds": kinds, "window": window,
            "elapsed": document.get("elapsed_time", 0.0),
            "node_seconds": {r["unique_id"]: r["execution_time"] for r in results},
            "slowest": [(r["unique_id"].split(".")[-1], r["execution_time"]) for r in slowest]}


def _counterpart(unique_id: str) -> str | None:
    """The original's name for what one of our models computes: m4-infra's table name for a
    mimic-code concept, ``gt:<alias>`` for a reference; None for a node with no counterpart."""
    kind, *_, name = unique_id.split(".")
    if kind != "model":
        return None
    if name.startswith("int_mimiciv_") and "__" in name:
        return name.split("__", 1)[1]
    if name.startswith("ref_"):  # ref_eicu_oasis computes the eICU ground truth named oasis
        return "gt:" + name.removeprefix("ref_").removeprefix("eicu_").replace("_", "-")
    return None


def _per_model_excess(ours: dict, original: dict, rows: int = 10) -> list[tuple[str, float, float]]:
    """(our model, original seconds, our seconds) for the models whose time exceeds the original's
    for the same concept the most; a model without a counterpart (the narrow event tables)
    counts against 0 s."""
    theirs = {**original["table_seconds"], **{f"gt:{a}": t for a, t in original["ground_truth_seconds"].items()}}
    found = []
    for unique_id, seconds in ours.get("node_seconds", {}).items():
        if not unique_id.startswith("model."):
            continue
        counterpart = _counterpart(unique_id)
        found.append((unique_id.split(".")[-1], theirs.get(counterpart, 0.0) if counterpart else 0.0, seconds))
    return sorted(found, key=lambda row: row[2] - row[1], reverse=True)[:rows]


def _copy(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    for database in source.glob("*.duckdb"):
        shutil.copy2(database, target / database.name)
    return target


def _bench_size(stays_target: int, args: argparse.Namespace, stays_per_patient: float, work: Path) -> dict:
    patients = math.ceil(stays_target / stays_per_patient)
    size_dir = work / f"stays_{stays_target}"
    source = size_dir / "source"
    _, _, synth = _child("synth", str(patients), str(args.eicu_patients), str(args.seed), str(source))
    print(f"\n== {stays_target} stays: {patients} patients -> {synth['stays']:,} ICU stays, "
          f"{synth['chartevents']:,} chartevents (+ eICU, {args.eicu_patients} patients; synthesised in "
          f"{synth['seconds']:.0f} s); {_load()}", flush=True)
    row = {"target": stays_target, "stays": synth["stays"], "chartevents": synth["chartevents"]}
    first = ["ours", "original"] if args.ours_first else ["original", "ours"]
    details: dict[str, dict] = {}
    runs: dict[str, list[tuple[float, float]]] = {"original": [], "ours": []}
    for repeat in range(args.repeat):
        for side in (first if repeat % 2 == 0 else first[::-1]):  # alternate who runs first
            seconds, peak = _bench_side(side, source, size_dir, args, details)
            runs[side].append((seconds, peak))
    for side, measured in runs.items():
        row[side] = {"seconds": statistics.median(s for s, _ in measured),
                     "peak_mib": statistics.median(p for _, p in measured),
                     "load": os.getloadavg()[0], "runs": measured}
    if args.repeat > 1:
        print("   medians of " + str(args.repeat) + ": " + ", ".join(
            f"{side} {row[side]['seconds']:.1f} s, {row[side]['peak_mib']:.0f} MiB" for side in runs), flush=True)
    if args.per_model:
        print("   where ours spends more than the original (one node at a time), seconds:\n"
              f"   {'model':55} {'original':>8} {'ours':>7} {'excess':>7}")
        for name, theirs, ours in _per_model_excess(details["ours"], details["original"]):
            print(f"   {name:55} {theirs:8.2f} {ours:7.2f} {ours - theirs:+7.2f}")
    ratio = row["ours"]["seconds"] / row["original"]["seconds"]
    memory = row["ours"]["peak_mib"] / row["original"]["peak_mib"]
    print(f"   ratio ours/original: time {ratio:.2f}x, peak memory {memory:.2f}x", flush=True)
    if not args.keep:
        shutil.rmtree(size_dir)
    return row


def _bench_side(side: str, source: Path, size_dir: Path, args: argparse.Namespace,
                details: dict[str, dict]) -> tuple[float, float]:
    """One run of one side on its own copy of ``source``: (seconds, peak MiB); prints its line and
    keeps its details in ``details[side]``."""
    copy = _copy(source, size_dir / side)
    if side == "original":
        seconds, peak, detail = _child("original", str(copy))
        top = sorted(detail["ground_truth_seconds"].items(), key=lambda item: item[1], reverse=True)[:3]
        print(f"   original: {seconds:6.1f} s, peak {peak:6.0f} MiB ({_load()}); materialize_all "
              f"{detail['derived_seconds']:.1f} s ({detail['derived_tables']} tables), 17 ground truths "
              f"{sum(detail['ground_truth_seconds'].values()):.1f} s (slowest: "
              + ", ".join(f"{name} {secs:.1f} s" for name, secs in top) + ")", flush=True)
    else:
        seconds, peak, detail = _ours(copy, args.ours_args)
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(detail.get("kinds", {}).items()))
        print(f"   ours:     {seconds:6.1f} s, peak {peak:6.0f} MiB ({_load()}); {detail.get('nodes', 0)} "
              f"nodes ({kinds}), first node start to last node end {detail.get('window', 0):.1f} s, so "
              f"{seconds - detail.get('window', 0):.1f} s before and after them (start, parse, compile, "
              "summary); slowest: "
              + ", ".join(f"{name} {secs:.1f} s" for name, secs in detail.get("slowest", [])[:3]), flush=True)
    details[side] = detail
    shutil.rmtree(copy)
    return seconds, peak


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least squares y = a + b x."""
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    spread = sum((x - mean_x) ** 2 for x in xs)
    b = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread if spread else 0.0
    return mean_y - b * mean_x, b


def _summary(rows: list[dict]) -> None:
    print(f"\n{'stays':>7} {'chartevents':>12} {'original s':>10} {'ours s':>8} {'ratio':>6} "
          f"{'orig MiB':>9} {'ours MiB':>9} {'load':>5}")
    for row in rows:
        o, u = row["original"], row["ours"]
        print(f"{row['stays']:>7,} {row['chartevents']:>12,} {o['seconds']:>10.1f} {u['seconds']:>8.1f} "
              f"{u['seconds'] / o['seconds']:>5.2f}x {o['peak_mib']:>9.0f} {u['peak_mib']:>9.0f} "
              f"{max(o['load'], u['load']):>5.2f}")
    if len({row["stays"] for row in rows}) < 2:
        print("\n(projection needs at least two sizes)")
        return
    per_stay = sum(row["chartevents"] / row["stays"] for row in rows) / len(rows)
    print(f"\nfit over {len(rows)} sizes, seconds = a + b * stays; projected to full MIMIC-IV ({FULL_STAYS:,} "
          f"stays) and, since the synthetic data has {per_stay:,.0f} chartevents per stay against real "
          f"MIMIC-IV's {FULL_CHARTEVENTS / FULL_STAYS:,.0f}, to as many stays as carry 433 M chartevents rows:")
    stays = [float(row["stays"]) for row in rows]
    scaled = FULL_CHARTEVENTS / per_stay
    projected = {}
    for side in ("original", "ours"):
        a, b = _fit(stays, [row[side]["seconds"] for row in rows])
        projected[side] = (a + b * FULL_STAYS, a + b * scaled)
        print(f"   {side:8}: a = {a:6.1f} s fixed, b = {b * 1000:6.2f} s per 1,000 stays; "
              f"{projected[side][0]:8.0f} s at {FULL_STAYS:,} stays, {projected[side][1]:8.0f} s at "
              f"{scaled:,.0f} stays")
    print(f"   ratio ours/original projected: {projected['ours'][0] / projected['original'][0]:.2f}x by stays, "
          f"{projected['ours'][1] / projected['original'][1]:.2f}x by chartevents rows")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stays", type=int, nargs="+", default=[1000, 3000, 10000, 20000],
                        help="MIMIC-IV ICU stay counts to measure (the projection fits all of them)")
    parser.add_argument("--eicu-patients", type=int, default=1000, help="eICU patients at every size (0: none)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--ours-args", nargs="*", default=[],
                        help="extra options for `m4agent reference build`, e.g. --ours-args=--full-tests "
                        "(default: none, as a user runs it)")
    parser.add_argument("--per-model", action="store_true",
                        help="ours with --threads 1, and the models costing most over the original's per-table times")
    parser.add_argument("--ours-first", action="store_true", help="run ours before the original at each size")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each side per size, alternating which runs first; medians are reported")
    parser.add_argument("--no-warm-up", action="store_true",
                        help="skip the warm-up build (the first size then pays dbt's parse if never saved)")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the databases of each size")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "synth":
            result = _child_synth(int(rest[0]), int(rest[1]), int(rest[2]), rest[3])
        else:
            result = _child_original(rest[0])
        print(json.dumps(result))
        return
    if args.per_model and "--threads" not in args.ours_args:
        args.ours_args = [*args.ours_args, "--threads", "1"]
    if not os.environ.get("M4_ORIGINAL_REPO"):
        sys.exit("set M4_ORIGINAL_REPO to a clone (or bare mirror) of hannesill/m4: the original's ground truth")

    work = args.work or Path(tempfile.mkdtemp(prefix="bench_derived_"))
    work.mkdir(parents=True, exist_ok=True)
    probe_dir = work / "probe"
    _, _, probe = _child("synth", str(PROBE_PATIENTS), str(min(args.eicu_patients, PROBE_PATIENTS)),
                         str(args.seed), str(probe_dir))
    stays_per_patient = probe["stays"] / PROBE_PATIENTS
    print(f"{os.cpu_count()} cores, seed {args.seed}; probe: {probe['stays']} stays per {PROBE_PATIENTS} "
          f"patients; {_load()}", flush=True)
    if not args.no_warm_up:
        seconds, peak, detail = _ours(probe_dir, args.ours_args)
        print(f"warm-up `m4agent reference build` on the probe ({probe['stays']} stays): {seconds:.1f} s, "
              f"{detail.get('nodes', 0)} nodes ({_load()})", flush=True)
    shutil.rmtree(probe_dir)
    rows = [_bench_size(stays, args, stays_per_patient, work) for stays in sorted(args.stays)]
    _summary(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    if not args.work and not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
