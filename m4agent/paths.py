"""The data directory convention shared by every command.

``--data-dir DIR`` (default ``./m4data``, environment ``M4AGENT_DATA_DIR``)
holds ``DIR/mimic_iv.duckdb`` (schemas ``mimiciv_hosp``, ``mimiciv_icu`` and,
after ``reference build``, ``mimiciv_derived``) and ``DIR/eicu.duckdb``
(schema ``eicu_crd``), the layout the original M4Bench harness uses.
"""

from __future__ import annotations

import os
from pathlib import Path

from m4agent.schema import DATABASE_FILES

DEFAULT_DATA_DIR = "m4data"
ENV_DATA_DIR = "M4AGENT_DATA_DIR"

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def resolve_data_dir(data_dir: str | Path | None = None) -> Path:
    """The data directory: the argument, else $M4AGENT_DATA_DIR, else ./m4data."""
    if data_dir is None:
        data_dir = os.environ.get(ENV_DATA_DIR, DEFAULT_DATA_DIR)
    return Path(data_dir).expanduser().resolve()


def database_path(data_dir: str | Path | None, dataset: str) -> Path:
    """Path of the DuckDB file that holds ``dataset`` inside the data directory."""
    try:
        name = DATABASE_FILES[dataset]
    except KeyError:
        raise ValueError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATABASE_FILES)}") from None
    return resolve_data_dir(data_dir) / name
