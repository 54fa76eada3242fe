"""The derived layer as dbt models versus m4-infra's ``materialize_all``: wall time and peak memory.

Usage: ``python benchmarks/bench_derived.py [--stays 5000 20000] [--threads 2] [--memory-limit 8GB]
[--dbt-threads 1] [--no-build]``

For each size, synthetic MIMIC-IV is written once (the patient count is
calibrated on a one-cycle probe so the ICU stay count lands near the target;
the actual count is printed) and copied for each contender, so every side
starts from the same untouched source tables:

- ``m4``: ``m4.core.derived.materializer.materialize_all("mimic-iv", copy)``,
  the 63 mimic-code SQL files in order on one connection;
- ``dbt run``: ``dbt build --select +path:models/intermediate/mimiciv
  --exclude-resource-type test unit_test`` (the value-set seeds, staging views
  and derived tables without tests; plain ``dbt run`` would skip the seeds);
- ``dbt test``: ``dbt test`` of the same selection on the ``dbt run`` copy
  (data tests and unit tests);
- ``dbt build``: ``dbt build`` of the same selection on its own copy (seeds,
  models and tests interleaved; ``--no-build`` skips it).

Each contender runs in its own subprocess, which reports its own peak resident
memory (``RUSAGE_SELF``); the parent's ``RUSAGE_CHILDREN`` only keeps the
maximum over all children. Every DuckDB connection in a child is opened with
the same ``threads`` and ``memory_limit`` (dbt's profile reads the memory
limit from ``M4AGENT_MEMORY_LIMIT``); dbt's own concurrency stays at the
profile's ``threads`` unless ``--dbt-threads`` is given (with 1, per-model
times compare directly with m4's per-table times). "seconds" is measured
inside the child around the call (libraries already imported, so dbt's parse
and compile are included but Python's import time is not). Each dbt side
starts with a fresh target folder, so it pays a full parse, except ``dbt
test``, which reuses the ``dbt run`` copy's partial parse. The machine's load
average is printed after every step: wall times on a shared machine move with
it, so compare sides measured at similar load.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

SELECTION = "+path:models/intermediate/mimiciv"
PROBE_PATIENTS = 80  # one full cycle of the MIMIC-IV generator's scenarios x grades


def _limit_duckdb(threads: int, memory_limit: str) -> None:
    """Open every DuckDB connection of this process with the same threads and memory limit."""
    import duckdb

    connect = duckdb.connect

    def limited(*args: object, **kwargs: object) -> object:
        config = dict(kwargs.pop("config", None) or {})
        config.setdefault("threads", threads)
        config.setdefault("memory_limit", memory_limit)
        return connect(*args, config=config, **kwargs)

    duckdb.connect = limited
    os.environ["M4AGENT_MEMORY_LIMIT"] = memory_limit


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child_synth(patients: int, seed: int, data_dir: str) -> dict:
    import duckdb

    from m4agent.paths import database_path
    from m4agent.synth import synthesize

    start = time.perf_counter()
    synthesize("mimic-iv", Path(data_dir), patients=patients, seed=seed)
    seconds = time.perf_counter() - start
    con = duckdb.connect(str(database_path(data_dir, "mimic-iv")), read_only=True)
    try:
        stays = con.execute("SELECT count(*) FROM mimiciv_icu.icustays").fetchone()[0]
        chart = con.execute("SELECT count(*) FROM mimiciv_icu.chartevents").fetchone()[0]
    finally:
        con.close()
    return {"seconds": seconds, "stays": stays, "chartevents": chart, "peak_mib": _peak_mib()}


def _child_m4(db_path: str, threads: int, memory_limit: str) -> dict:
    _limit_duckdb(threads, memory_limit)
    from m4.core.derived.materializer import materialize_all
    from m4.services.events import EventReporter

    class TableTimes(EventReporter):
        def __init__(self) -> None:
            self.seconds: dict[str, float] = {}

        def emit(self, event: str, **fields: object) -> None:
            if event == "derived_table_completed":
                self.seconds[str(fields["table"])] = float(fields["elapsed_seconds"])

    reporter = TableTimes()
    start = time.perf_counter()
    created = materialize_all("mimic-iv", Path(db_path), event_reporter=reporter)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "tables": len(created), "node_seconds": reporter.seconds,
            "peak_mib": _peak_mib()}


def _utc(stamp: str) -> datetime:
    """dbt's timing stamps are UTC, with or without a zone suffix."""
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _node_times(data_dir: Path) -> tuple[dict[str, float], float, float, dict[str, int]]:
    """From run_results.json: per-node execution seconds, the first node's start and the last
    node's end (epoch seconds), and the count of each status."""
    results = json.loads((data_dir / "dbt" / "target" / "run_results.json").read_text())["results"]
    seconds: dict[str, float] = {}
    statuses: dict[str, int] = {}
    starts: list[datetime] = []
    ends: list[datetime] = []
    for result in results:
        seconds[result["unique_id"]] = result["execution_time"]
        statuses[result["status"]] = statuses.get(result["status"], 0) + 1
        for step in result.get("timing", []):
            if step.get("started_at") and step.get("completed_at"):
                starts.append(_utc(step["started_at"]))
                ends.append(_utc(step["completed_at"]))
    first, last = (min(starts).timestamp(), max(ends).timestamp()) if starts else (0.0, 0.0)
    return seconds, first, last, statuses


def _child_dbt(command: str, data_dir: str, threads: int, memory_limit: str, dbt_threads: int) -> dict:
    _limit_duckdb(threads, memory_limit)
    import dbt.cli.main  # noqa: F401  (imported before the clock starts)

    from m4agent.dbt_runner import invoke
    from m4agent.errors import M4AgentError

    # cautious: only tests whose parents are all in the selection (not the reference marts' tests)
    args = [command, "--select", SELECTION, "--indirect-selection", "cautious"]
    if command == "run":  # seeds, views and tables without tests (`dbt run` skips seeds)
        args = ["build", *args[1:], "--exclude-resource-type", "test", "unit_test"]
    if dbt_threads:
        args += ["--threads", str(dbt_threads)]
    start = time.time()
    try:
        invoke(Path(data_dir), args)
    except M4AgentError:  # failing tests still give a timing; the statuses are reported
        pass
    end = time.time()
    node_seconds, first, last, statuses = _node_times(Path(data_dir))
    return {"seconds": end - start, "node_seconds": node_seconds, "window": last - first,
            "before_first_node": first - start, "after_last_node": end - last, "statuses": statuses,
            "peak_mib": _peak_mib()}


def _run_child(args: list[str]) -> dict:
    """Run this script as a child and return its JSON result, with the child's wall seconds."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"child {' '.join(args[:1])} failed:\n{out.stderr[-4000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process_seconds"] = time.perf_counter() - start
    return result


def _copy_data_dir(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    shutil.copy2(source / "mimic_iv.duckdb", target / "mimic_iv.duckdb")
    return target


def _top(node_seconds: dict[str, float], count: int = 5) -> list[tuple[str, float]]:
    ranked = sorted(node_seconds.items(), key=lambda item: item[1], reverse=True)
    return [(name.split(".")[-1] if name.startswith(("model.", "seed.")) else name, secs)
            for name, secs in ranked[:count]]


def _bench_size(stays_target: int, args: argparse.Namespace, stays_per_patient: float, work: Path) -> None:
    patients = math.ceil(stays_target / stays_per_patient)
    size_dir = work / f"stays_{stays_target}"
    source = size_dir / "source"
    synth = _run_child(["synth", str(patients), str(args.seed), str(source)])
    print(f"\n== target {stays_target} stays: {patients} patients -> {synth['stays']} ICU stays, "
          f"{synth['chartevents']:,} chartevents (synthesised in {synth['seconds']:.1f}s); "
          f"load average {_load()}", flush=True)
    limits = [str(args.threads), args.memory_limit]
    m4_dir = _copy_data_dir(source, size_dir / "m4")
    m4 = _run_child(["m4", str(m4_dir / "mimic_iv.duckdb"), *limits])
    print(f"   m4 materialize_all: {m4['seconds']:.1f}s, {m4['tables']} tables; load average {_load()}", flush=True)
    run_dir = _copy_data_dir(source, size_dir / "dbt_run")
    dbt_threads = [str(args.dbt_threads)]
    run = _run_child(["dbt", "run", str(run_dir), *limits, *dbt_threads])
    print(f"   dbt run: {run['seconds']:.1f}s; load average {_load()}", flush=True)
    test = _run_child(["dbt", "test", str(run_dir), *limits, *dbt_threads])
    print(f"   dbt test: {test['seconds']:.1f}s; load average {_load()}", flush=True)
    build = None
    if not args.no_build:
        build_dir = _copy_data_dir(source, size_dir / "dbt_build")
        build = _run_child(["dbt", "build", str(build_dir), *limits, *dbt_threads])
        print(f"   dbt build: {build['seconds']:.1f}s; load average {_load()}", flush=True)

    rows = [("dbt run (no tests)", run), ("dbt run + dbt test", None)]
    if build:
        rows.append(("dbt build (with tests)", build))
    print(f"\n{'stays':>6} {'ours':24} {'ours s':>8} {'m4 s':>7} {'ratio':>6} {'ours MiB':>9} {'m4 MiB':>7}")
    for label, result in rows:
        seconds = result["seconds"] if result else run["seconds"] + test["seconds"]
        peak = result["peak_mib"] if result else max(run["peak_mib"], test["peak_mib"])
        print(f"{synth['stays']:>6} {label:24} {seconds:>8.1f} {m4['seconds']:>7.1f} "
              f"{seconds / m4['seconds']:>5.2f}x {peak:>9.0f} {m4['peak_mib']:>7.0f}")
    print(f"       (process wall incl. Python imports: m4 {m4['process_seconds']:.1f}s, dbt run "
          f"{run['process_seconds']:.1f}s, dbt test {test['process_seconds']:.1f}s"
          + (f", dbt build {build['process_seconds']:.1f}s)" if build else ")"))

    for label, result in [("dbt run", run), ("dbt test", test)] + ([("dbt build", build)] if build else []):
        nodes = result["node_seconds"]
        total = sum(nodes.values())
        counts = ", ".join(f"{count} {status}" for status, count in sorted(result["statuses"].items()))
        print(f"\n   {label}: {len(nodes)} nodes ({counts}), sum of node times {total:.1f}s, first start to last end "
              f"{result['window']:.1f}s, fixed overhead (wall minus that window) "
              f"{result['seconds'] - result['window']:.1f}s = {result['before_first_node']:.1f}s before "
              f"the first node (parse, compile, catalog) + {result['after_last_node']:.1f}s after the "
              f"last (artefacts, close); wall minus sum of node times {result['seconds'] - total:.1f}s")
        for name, secs in _top(nodes):
            print(f"      {secs:7.2f}s  {name}")
    print(f"\n   m4: sum of table times {sum(m4['node_seconds'].values()):.1f}s, top 5:")
    for name, secs in _top(m4["node_seconds"]):
        print(f"      {secs:7.2f}s  {name}")
    if not args.keep:
        shutil.rmtree(size_dir)


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stays", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="DuckDB threads for every connection (default: all cores)")
    parser.add_argument("--memory-limit", default="8GB", help="DuckDB memory_limit for every connection")
    parser.add_argument("--dbt-threads", type=int, default=0,
                        help="models dbt runs at once (default: the profile's threads)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--no-build", action="store_true", help="skip the separate `dbt build` run")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the databases of each size")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "synth":
            result = _child_synth(int(rest[0]), int(rest[1]), rest[2])
        elif kind == "m4":
            result = _child_m4(rest[0], int(rest[1]), rest[2])
        else:
            result = _child_dbt(rest[0], rest[1], int(rest[2]), rest[3], int(rest[4]))
        print(json.dumps(result))
        return

    work = args.work or Path(tempfile.mkdtemp(prefix="bench_derived_"))
    work.mkdir(parents=True, exist_ok=True)
    probe = _run_child(["synth", str(PROBE_PATIENTS), str(args.seed), str(work / "probe")])
    shutil.rmtree(work / "probe")
    stays_per_patient = probe["stays"] / PROBE_PATIENTS
    print(f"DuckDB threads {args.threads}, memory_limit {args.memory_limit}, "
          f"dbt threads {args.dbt_threads or 'from profile'}, seed {args.seed}, "
          f"{os.cpu_count()} cores; probe: {probe['stays']} stays per {PROBE_PATIENTS} patients; "
          f"load average {_load()}", flush=True)
    for stays in sorted(args.stays):
        _bench_size(stays, args, stays_per_patient, work)
    if not args.work and not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
