"""The command line's shared vocabulary: the options several commands take, defined once so that every
command's --help says the same thing about them, and the data directory line every command prints (the
harness, report and export commands import them as ``m4agent.cli`` does). Errors are printed in one place,
``m4agent.cli.guarded``, which wraps every command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from m4agent.paths import ENV_DATA_DIR, check_data_dir, describe, locate_data_dir

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


def announce_data_dir(data_dir: Path | None, console: Console) -> Path:
    """The data directory ``--data-dir`` (or its default) names, after printing which one it is and why
    (``m4agent.paths``): every command says it the same way."""
    choice = locate_data_dir(data_dir)
    console.print(escape(describe(choice)), style="dim", soft_wrap=True)
    return check_data_dir(choice.path)
