"""`m4agent export harbor`: the command-line wiring of m4agent.export.harbor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from m4agent.cli_options import DataDir

export_app = typer.Typer(help="Export the tasks to other engines: a Harbor dataset.", no_args_is_help=True)
console = Console()


@export_app.command("harbor")
def harbor(
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="Folder to write the Harbor tasks into (one folder each).")],
    task: Annotated[list[str] | None, typer.Option("--task", help="A task to export (repeatable; default: "
                                                   "all 28).")] = None,
    condition: Annotated[list[str] | None, typer.Option("--condition", help="A condition (repeatable; "
                                                        "default: no-skill).")] = None,
    schema: Annotated[list[str] | None, typer.Option("--schema", help="A schema variant (repeatable; "
                                                     "default: native).")] = None,
    image: Annotated[str | None, typer.Option("--image", help="The image the environments start FROM "
                                              "(default: this checkout's agent image, m4agent-agent:<tag>; "
                                              "for cloud sandboxes, that image pushed to a registry).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Write one Harbor task per (task, condition, schema): instruction, environment, oracle, verifier."""
    from m4agent import workspaces
    from m4agent.export.harbor import export_harbor
    from m4agent.harness.image import image_tag
    from m4agent.paths import resolve_data_dir

    root = resolve_data_dir(data_dir)
    console.print(f"data directory: {escape(str(root))}", style="dim")
    schemas = tuple(schema or (workspaces.NATIVE,))
    for variant in schemas:
        workspaces.prepare(root, variant)
    exported = export_harbor(out, root, image or image_tag(), task_names=task,
                             conditions=tuple(condition or ("no-skill",)), schemas=schemas)
    console.print(f"[green]wrote[/] {len(exported)} Harbor task(s) under {escape(str(out))}; next, with "
                  f"Harbor (Python 3.12+): `harbor run -p {escape(str(exported[0].path))} -a oracle`",
                  soft_wrap=True)


@export_app.command("harbor-results")
def harbor_results(
    job_dir: Annotated[Path, typer.Argument(help="The job folder `harbor run` wrote.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="The run table to write (CSV), read by `m4agent report`.")],
) -> None:
    """Bring Harbor's trials of exported tasks back as a run table that `m4agent report` reads."""
    from m4agent.export.harbor_results import run_table

    path = run_table(job_dir, out)
    console.print(f"[green]wrote[/] {escape(str(path))}; next: `m4agent report {escape(str(path))}`", soft_wrap=True)
