"""Deterministic synthetic MIMIC-IV and eICU with the official schemas.

``synthesize(dataset, data_dir, patients, seed)`` writes the dataset's DuckDB
file into the data directory atomically: it is built under a temporary name
and renamed into place only when complete.
"""

from __future__ import annotations

import os
from pathlib import Path

from m4agent.errors import M4AgentError
from m4agent.paths import database_path


def synthesize(dataset: str, data_dir: Path, patients: int = 200, seed: int = 42) -> Path:
    if patients < 1:
        raise M4AgentError("--patients must be at least 1")
    target = database_path(data_dir, dataset)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".partial")
    for stale in (tmp, Path(str(tmp) + ".wal")):
        stale.unlink(missing_ok=True)
    if dataset == "mimic-iv":
        from m4agent.synth.mimic_iv import write_database
    elif dataset == "eicu":
        from m4agent.synth.eicu import write_database
    else:
        raise M4AgentError(f"unknown dataset {dataset!r}; choose mimic-iv or eicu")
    write_database(tmp, patients=patients, seed=seed)
    Path(str(target) + ".wal").unlink(missing_ok=True)
    os.replace(tmp, target)
    return target
