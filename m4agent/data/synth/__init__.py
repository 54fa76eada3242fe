"""Deterministic synthetic MIMIC-IV and eICU with the official schemas.

``synthesize(dataset, data_dir, patients, seed, edge_cases)`` writes the dataset's
DuckDB file into the data directory atomically: it is built under a temporary name
and renamed into place only when complete. With ``edge_cases`` the cases real data
has and references most easily get wrong (values at every cut-point, negative and
zero values, duplicates at one time, ties, window edges, unit variants) are planted
into the finished tables (``synth/mimic_iv/edge_cases.py``, ``synth/eicu_edge_cases.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from m4agent.errors import M4AgentError
from m4agent.paths import database_path


def synthesize(dataset: str, data_dir: Path, patients: int = 200, seed: int = 42,
               edge_cases: bool = False) -> Path:
    if patients < 1:
        raise M4AgentError("--patients must be at least 1")
    target = database_path(data_dir, dataset)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".partial")
    for stale in (tmp, Path(str(tmp) + ".wal")):
        stale.unlink(missing_ok=True)
    if dataset == "mimic-iv":
        from m4agent.data.synth.mimic_iv import write_database
    elif dataset == "eicu":
        from m4agent.data.synth.eicu import write_database
    else:
        raise M4AgentError(f"unknown dataset {dataset!r}; choose mimic-iv or eicu")
    write_database(tmp, patients=patients, seed=seed)
    if edge_cases:
        plant_edge_cases(dataset, tmp)
    Path(str(target) + ".wal").unlink(missing_ok=True)
    os.replace(tmp, target)
    return target


def plant_edge_cases(dataset: str, path: Path) -> None:
    """Plant the dataset's edge cases into the synthetic database at ``path`` (written by the generator)."""
    if dataset == "mimic-iv":
        from m4agent.data.synth.mimic_iv.edge_cases import plant
    else:
        from m4agent.data.synth.eicu_edge_cases import plant
    con = duckdb.connect(str(path))
    try:
        plant(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()
