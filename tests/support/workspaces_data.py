"""A small built data directory for the workspace tests, made once per test process.

40 synthetic patients per dataset (seed 42), then ``dbt build``: about a minute. Both
workspace test modules ask for it; the first builds it under pytest's base temporary
folder, the second finds it there (a marker file says the build finished).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from m4agent.data.synth import synthesize
from m4agent.dbt.runner import build

PATIENTS = 40
SEED = 42


def built_data_dir(base: Path) -> Path:
    """``base/workspaces_data``, synthesized and built unless a previous call did it."""
    target = base / "workspaces_data"
    marker = target / ".built"
    if marker.exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    for dataset in ("mimic-iv", "eicu"):
        synthesize(dataset, target, patients=PATIENTS, seed=SEED)
    build(target)
    marker.touch()
    return target


def copy_databases(source: Path, target: Path, datasets: tuple[str, ...] = ("mimic_iv.duckdb",)) -> Path:
    """A fresh data directory holding copies of ``source``'s database files (nothing prepared)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in datasets:
        shutil.copy2(source / name, target / name)
    return target
