"""Synthesis throughput: rows per second and peak memory at 5,000 and 50,000 ICU stays.

Usage: ``python benchmarks/bench_synth.py [--stays 5000 50000] [--datasets mimic-iv eicu]``

Each size runs in its own subprocess, so its peak resident memory is measured
alone (``resource.getrusage(RUSAGE_CHILDREN)`` after the child ends, and the
child's own ``RUSAGE_SELF``). The baseline, measured in the same run, is a bare
DuckDB insert of the same number of rows (``CREATE TABLE ... AS SELECT ...
FROM range(n)`` with an integer, a double, a timestamp and a text column); the
ratio says how many times slower than that floor the generator is.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# MIMIC-IV: 80 patients (16 scenarios x 5 grades) produce 87 ICU stays (the readmission scenario
# has two in its index admission, and grades 3-4 one more in an earlier admission);
# other datasets are calibrated with a 200-patient probe
MIMIC_STAYS_PER_PATIENT = 87 / 80


def _child_synth(dataset: str, patients: int, seed: int, folder: str) -> dict:
    import duckdb

    from m4agent.data.schema import tables

    path = Path(folder) / f"{dataset}.duckdb"
    if dataset == "mimic-iv":
        from m4agent.data.synth.mimic_iv import write_database
    else:
        from m4agent.data.synth.eicu import write_database
    start = time.perf_counter()
    write_database(path, patients=patients, seed=seed)
    seconds = time.perf_counter() - start
    con = duckdb.connect(str(path), read_only=True)
    rows = sum(con.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in tables(dataset))
    stays_table = "mimiciv_icu.icustays" if dataset == "mimic-iv" else "eicu_crd.patient"
    stays = con.execute(f"SELECT count(*) FROM {stays_table}").fetchone()[0]
    con.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"seconds": seconds, "rows": rows, "stays": stays, "bytes": path.stat().st_size,
            "cpu_seconds": usage.ru_utime + usage.ru_stime, "self_peak_mib": usage.ru_maxrss / 1024}


def _child_baseline(rows: int, folder: str) -> dict:
    import duckdb

    path = Path(folder) / "baseline.duckdb"
    start = time.perf_counter()
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE t AS SELECT range::INTEGER AS i, range * 0.5 AS v, "
        "TIMESTAMP '2150-01-01' + to_minutes(range) AS ts, 'value ' || (range % 1000) AS s "
        f"FROM range({rows})")
    con.execute("CHECKPOINT")
    con.close()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "rows": rows,
            "self_peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _run_child(args: list[str]) -> tuple[dict, float]:
    """Run this script as a child; returns its JSON result and the children's peak RSS in MiB."""
    out = subprocess.run([sys.executable, __file__, "--child", *args], check=True, capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stays", type=int, nargs="+", default=[5000, 50000])
    parser.add_argument("--datasets", nargs="+", default=["mimic-iv", "eicu"])
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "synth":
            dataset, patients, seed, folder = rest
            print(json.dumps(_child_synth(dataset, int(patients), int(seed), folder)))
        else:
            rows, folder = rest
            print(json.dumps(_child_baseline(int(rows), folder)))
        return

    datasets = [d for d in args.datasets
                if d == "mimic-iv" or importlib.util.find_spec("m4agent.data.synth.eicu") is not None]
    # peak MiB: the synthesis child's own peak RSS; children max: RUSAGE_CHILDREN so far (all children)
    # cpu s: CPU time of the synthesis child (wall time suffers when the machine is shared)
    print(f"{'dataset':9} {'stays':>7} {'rows':>11} {'seconds':>8} {'cpu s':>7} {'rows/s':>10} {'peak MiB':>9} "
          f"{'children max':>14} {'baseline rows/s':>16} {'ratio':>6}")
    stays_per_patient = {"mimic-iv": MIMIC_STAYS_PER_PATIENT}
    for dataset in datasets:
        if dataset not in stays_per_patient:  # calibrate on a small probe run
            with tempfile.TemporaryDirectory(prefix="bench_synth_") as folder:
                probe, _ = _run_child(["synth", dataset, "200", str(args.seed), folder])
            stays_per_patient[dataset] = probe["stays"] / 200
    for dataset in datasets:
        for stays in sorted(args.stays):
            patients = math.ceil(stays / stays_per_patient[dataset])
            with tempfile.TemporaryDirectory(prefix="bench_synth_") as folder:
                synth, children_peak = _run_child(["synth", dataset, str(patients), str(args.seed), folder])
                base, _ = _run_child(["baseline", str(synth["rows"]), folder])
            rate = synth["rows"] / synth["seconds"]
            base_rate = base["rows"] / base["seconds"]
            print(f"{dataset:9} {synth['stays']:>7} {synth['rows']:>11,} {synth['seconds']:>8.1f} "
                  f"{synth['cpu_seconds']:>7.1f} {rate:>10,.0f} "
                  f"{synth['self_peak_mib']:>9.0f} {children_peak:>14.0f} {base_rate:>16,.0f} "
                  f"{base_rate / rate:>5.1f}x", flush=True)


if __name__ == "__main__":
    main()
