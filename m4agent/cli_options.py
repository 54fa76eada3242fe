"""The command-line options several commands share, defined once so that every command's --help says
the same thing about them (the harness, report and export commands import them as ``m4agent.cli`` does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from m4agent.paths import ENV_DATA_DIR

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", metavar="DIR", show_default=False,
                 help=f"Data directory holding mimic_iv.duckdb and eicu.duckdb (default: ${ENV_DATA_DIR}, else "
                 "data_dir in the nearest m4agent.toml, else the nearest m4data folder here or above, else "
                 "./m4data). Printed by every command."),
]
TasksDir = Annotated[
    Path | None,
    typer.Option("--tasks-dir", metavar="DIR", show_default=False,
                 help="Folder of tasks in M4Bench's format, <family>/<task>/task.toml (default: the built-in "
                 "tasks; e.g. the original's benchmark/tasks, with its skills)."),
]
NoFail = Annotated[bool, typer.Option("--no-fail", help="Exit 0 even when an output fails the strict checks "
                                      "(default: exit 2).")]
Patients = Annotated[int, typer.Option("--patients", metavar="N", help="Patients per synthetic dataset.")]
Seed = Annotated[int, typer.Option("--seed", metavar="N", help="Random seed; the same seed gives identical tables.")]
