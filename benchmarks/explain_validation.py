"""How often `m4agent explain` names a planted reading, and stays silent on noise, per family.

Usage: python benchmarks/explain_validation.py --data-dir DIR [--tasks mimic-sofa-24h ...]

Builds the tasks' variants in DIR (one dbt run, timed), writes the corpus of tests/support/
explain_corpus.py (every variant planted alone and in five copies with 1 to 10 % of rows perturbed;
the reference in ten copies with 1 to 40 % of rows perturbed) and diagnoses it in one call. A planted output counts as named when
the planted reading explains it best (ties of readings whose tables are identical on the data count
as named; they cannot be told apart); a noise output counts as right when no reading explains it.
Readings that change no row of the reference on DIR's data cannot be planted distinguishably and are
listed apart, as are noisy planted outputs whose noise hit every row the reading changes (no
evidence of the reading is left in them).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.explain_corpus import corpus  # noqa: E402

from m4agent import conventions, explain  # noqa: E402
from m4agent.dbt import duckdb_session  # noqa: E402
from m4agent.registry import all_tasks  # noqa: E402

DEFAULT_TASKS = ("mimic-sofa-24h", "mimic-kdigo-48h", "mimic-vasopressor-equivalents", "mimic-gcs-24h-raw",
                 "mimic-suspicion-infection", "mimic-creatinine-baseline", "mimic-urine-output-rate",
                 "mimic-sepsis3-raw", "mimic-sapsii-24h", "mimic-charlson-raw",
                 "mimic-sirs-24h-raw", "mimic-oasis-24h",
                 "mimic-apsiii-24h", "mimic-meld-24h", "mimic-ventilation")
NOISE_SHARES = (0.01, 0.02, 0.05, 0.05, 0.1, 0.1, 0.2, 0.2, 0.4, 0.4)  # ten noise outputs per task
PLANTED_NOISE = (0.01, 0.02, 0.05, 0.05, 0.1)  # five noisy copies of each planted reading


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS))
    args = parser.parse_args()
    tasks = [all_tasks()[name] for name in args.tasks]
    seconds = conventions.build_variants(args.data_dir, sorted({t.reference_model for t in tasks}))
    print(f"variants built in {seconds:.1f} s (one dbt run)")
    with tempfile.TemporaryDirectory(prefix="explain-corpus-") as scratch:
        con = duckdb_session.connect(args.data_dir, read_only=True)
        try:
            cases = corpus(con, tasks, Path(scratch), noise_shares=NOISE_SHARES, planted_noise=PLANTED_NOISE)
        finally:
            con.close()
        started = time.perf_counter()
        found = explain.diagnose([case.run for case in cases], args.data_dir)
        print(f"{len(cases)} outputs diagnosed in {time.perf_counter() - started:.1f} s (one grading call)")
    print(f"{'task':34} {'kind':14} {'right':>7}  not distinguishable on this data")
    for task in tasks:
        own = [c for c in cases if c.run.task.name == task.name]
        silent = set()
        for kind in ("planted", "planted+noise", "noise"):
            right = total = erased = 0
            for case in (c for c in own if c.kind == kind):
                diagnosis = found[case.run.run_id]
                if case.planted is not None:
                    reading = next(r for r in diagnosis.readings if r.variant.model == case.planted)
                    if reading.differs == 0:
                        silent.add(case.planted)
                        continue
                    if case.evidence == 0:
                        erased += 1
                        continue
                    named = case.planted in [r.variant.model for r in diagnosis.best]
                    right += named
                    if not named:
                        print(f"  missed {case.run.run_id}: {diagnosis.summary()}")
                else:
                    right += not diagnosis.explaining
                    if diagnosis.explaining:
                        print(f"  noise explained {case.run.run_id}: {diagnosis.summary()}")
                total += 1
            note = f"{erased} left out: the noise hit every row the reading changes" if erased else ""
            print(f"{task.name:34} {kind:14} {right:>3}/{total:<3}  "
                  f"{', '.join(sorted(silent)) if kind == 'noise' else note}")


if __name__ == "__main__":
    main()
