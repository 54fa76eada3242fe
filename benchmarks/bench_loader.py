"""Benchmark: `m4agent data load` against DuckDB's bare `read_csv_auto` on the same csv.gz files.

    python benchmarks/bench_loader.py [--dataset mimic-iv] [--patients 4700] [--work DIR]

1. Synthesizes a source database (``m4agent.data.synth.synthesize``) and writes it
   out in PhysioNet's layout with ``tests/support/physionet_export.py``.
2. Loads the folder with ``m4agent.data.load.load`` (validated headers, official
   types, progress bars, atomic rename) into a fresh data directory.
3. Loads the same files with ``CREATE TABLE ... AS SELECT * FROM
   read_csv_auto(file)`` per file into a fresh database: the bare baseline,
   with type detection instead of the official types.

Each load runs in its own process so peak memory is its own. Prints rows,
csv.gz size, wall time, rows per second and peak RSS of both, and the ratio
(loader time / bare time).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the PhysioNet export

from m4agent.data.schema import tables  # noqa: E402


def _peak_rss_mib() -> float:
    """This process's peak resident memory (VmHWM; ru_maxrss would include the parent's before exec)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _run_loader(dataset: str, src: str, data_dir: str, out: mp.Queue) -> None:
    from rich.console import Console

    from m4agent.data.load import load

    started = time.perf_counter()
    db = load(dataset, Path(src), Path(data_dir), console=Console(stderr=True, quiet=True))
    seconds = time.perf_counter() - started
    out.put((seconds, _peak_rss_mib(), str(db)))


def _run_bare(dataset: str, src: str, db_path: str, out: mp.Queue) -> None:
    started = time.perf_counter()
    con = duckdb.connect(db_path)
    con.execute("SET enable_progress_bar = false")
    for table in tables(dataset).values():
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {table.schema}")
        path = Path(src) / f"{table.file_stem}.csv.gz"
        con.execute(f"CREATE TABLE {table.qualified} AS SELECT * FROM read_csv_auto('{path}')")
    con.close()
    seconds = time.perf_counter() - started
    out.put((seconds, _peak_rss_mib(), db_path))


def _in_child(target, *args) -> tuple[float, float, str]:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=target, args=(*args, queue))
    child.start()
    result = queue.get()
    child.join()
    if child.exitcode:
        raise SystemExit(f"{target.__name__} failed with exit code {child.exitcode}")
    return result


def _row_count(db: str, dataset: str) -> int:
    con = duckdb.connect(db, read_only=True)
    try:
        return sum(con.execute(f"SELECT count(*) FROM {t.qualified}").fetchone()[0]
                   for t in tables(dataset).values())
    finally:
        con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="mimic-iv", choices=["mimic-iv", "eicu"])
    parser.add_argument("--patients", type=int, default=4700,
                        help="synthetic patients (MIMIC-IV: about 1.06 ICU stays each, so ~5,000 stays)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    args = parser.parse_args()

    from support.physionet_export import export  # tests/support: test data, not the product

    from m4agent.data.synth import synthesize

    work = args.work or Path(tempfile.mkdtemp(prefix="m4agent-bench-loader-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        source_db = synthesize(args.dataset, work / "synth", patients=args.patients, seed=args.seed)
        synth_seconds = time.perf_counter() - started
        started = time.perf_counter()
        folder = export(source_db, args.dataset, work / "physionet")
        export_seconds = time.perf_counter() - started
        size_mib = sum(p.stat().st_size for p in folder.rglob("*.csv.gz")) / 2**20

        load_s, load_rss, load_db = _in_child(_run_loader, args.dataset, str(folder), str(work / "data"))
        bare_s, bare_rss, bare_db = _in_child(_run_bare, args.dataset, str(folder), str(work / "bare.duckdb"))
        rows = _row_count(load_db, args.dataset)
        assert rows == _row_count(bare_db, args.dataset), "both loads must read every row"
        con = duckdb.connect(load_db, read_only=True)
        stays = con.execute("SELECT count(*) FROM " + (
            "mimiciv_icu.icustays" if args.dataset == "mimic-iv" else "eicu_crd.patient")).fetchone()[0]
        con.close()

        print(f"dataset            {args.dataset}: {args.patients} patients, {stays:,} ICU stays, "
              f"{rows:,} rows, {size_mib:.1f} MiB csv.gz")
        print(f"synthesize         {synth_seconds:8.2f} s   export {export_seconds:.2f} s")
        print(f"m4agent load       {load_s:8.2f} s   {rows / load_s:12,.0f} rows/s   peak RSS {load_rss:7.0f} MiB")
        print(f"bare read_csv_auto {bare_s:8.2f} s   {rows / bare_s:12,.0f} rows/s   peak RSS {bare_rss:7.0f} MiB")
        print(f"ratio (load / bare) {load_s / bare_s:.2f}")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
