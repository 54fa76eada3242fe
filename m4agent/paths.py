"""The data directory convention shared by every command.

The data directory holds ``DIR/mimic_iv.duckdb`` (schemas ``mimiciv_hosp``, ``mimiciv_icu`` and,
after ``reference build``, ``mimiciv_derived`` and ``reference``) and ``DIR/eicu.duckdb`` (schema
``eicu_crd``), the layout the original M4Bench harness uses. It is chosen, first match wins, by:

1. ``--data-dir DIR``;
2. ``$M4AGENT_DATA_DIR``;
3. ``data_dir = "..."`` in an ``m4agent.toml`` in the working folder or the nearest folder above it
   (a relative path is read from the folder holding that file);
4. an ``m4data`` folder in the working folder or the nearest folder above it, so that a command run
   from inside a project (``runs/try1``, say) finds the project's data rather than none;
5. ``./m4data``.

Every command prints the one it used (:func:`describe`).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from m4agent.errors import M4AgentError

DEFAULT_DATA_DIR = "m4data"
ENV_DATA_DIR = "M4AGENT_DATA_DIR"
CONFIG_FILE = "m4agent.toml"

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class DataDirChoice:
    """The data directory a command uses and why (``source``: what chose it, for the user)."""

    path: Path
    source: str


def _ancestors(start: Path) -> list[Path]:
    return [start, *start.parents]


def _from_config(start: Path) -> DataDirChoice | None:
    for folder in _ancestors(start):
        config = folder / CONFIG_FILE
        if not config.is_file():
            continue
        try:
            doc = tomllib.loads(config.read_text())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise M4AgentError(f"{config}: cannot read it ({exc}); fix or remove the file") from exc
        value = doc.get("data_dir")
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise M4AgentError(f"{config}: data_dir must be a folder path in quotes, e.g. data_dir = \"m4data\"")
        return DataDirChoice((folder / Path(value).expanduser()).resolve(), f"data_dir in {config}")
    return None


def locate_data_dir(data_dir: str | Path | None = None, cwd: Path | None = None) -> DataDirChoice:
    """The data directory and what chose it (see the module docstring for the order)."""
    if data_dir is not None:
        return DataDirChoice(Path(data_dir).expanduser().resolve(), "--data-dir")
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return DataDirChoice(Path(env).expanduser().resolve(), f"${ENV_DATA_DIR}")
    here = (cwd or Path.cwd()).resolve()
    configured = _from_config(here)
    if configured is not None:
        return configured
    for folder in _ancestors(here):
        candidate = folder / DEFAULT_DATA_DIR
        if candidate.is_dir():
            source = "default ./m4data" if folder == here else f"the nearest m4data folder above {here}"
            return DataDirChoice(candidate, source)
    return DataDirChoice(here / DEFAULT_DATA_DIR, "default ./m4data")


def resolve_data_dir(data_dir: str | Path | None = None) -> Path:
    """The data directory's absolute path (see ``locate_data_dir``)."""
    return locate_data_dir(data_dir).path


def check_data_dir(path: Path) -> Path:
    """``path``, or an error when something other than a folder stands where the data directory is meant."""
    if path.exists() and not path.is_dir():
        raise M4AgentError(f"data directory {path} is a file, not a folder; pass --data-dir a folder "
                           "(it is created when missing)")
    return path


def describe(choice: DataDirChoice) -> str:
    """``data directory: PATH (SOURCE)``, the line each command prints first."""
    return f"data directory: {choice.path} ({choice.source})"


# The file of each dataset inside a data directory (the names the original M4Bench harness uses).
DATABASE_FILES = {"mimic-iv": "mimic_iv.duckdb", "eicu": "eicu.duckdb"}


def database_path(data_dir: str | Path | None, dataset: str) -> Path:
    """Path of the DuckDB file that holds ``dataset`` inside the data directory."""
    try:
        name = DATABASE_FILES[dataset]
    except KeyError:
        raise ValueError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATABASE_FILES)}") from None
    return resolve_data_dir(data_dir) / name
