"""The ``m4agent`` command line: wiring only; each module owns its own work.

    m4agent quickstart                 synthesize both datasets and build the references
    m4agent data synth|load|download   populate the source databases
    m4agent reference build            dbt build of mimiciv_derived and the references
    m4agent tasks list|show            the 28 benchmark tasks
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from m4agent.errors import M4AgentError
from m4agent.paths import ENV_DATA_DIR, resolve_data_dir

console = Console(stderr=True)

app = typer.Typer(
    help=(
        "m4agent: dbt-based references and grading for benchmarks of AI coding agents "
        "on clinical data (MIMIC-IV, eICU). Start with `m4agent quickstart`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="Populate the source databases: synthesize, load PhysioNet files, download demos.",
                       no_args_is_help=True)
reference_app = typer.Typer(help="Build the mimiciv_derived concepts and the reference models with dbt.",
                            no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(reference_app, name="reference")

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help=f"Data directory holding mimic_iv.duckdb and eicu.duckdb "
                 f"(default ./m4data, or ${ENV_DATA_DIR}).", show_default=False),
]
DatasetOpt = Annotated[str, typer.Option("--dataset", help="mimic-iv or eicu.")]


def _fail(exc: Exception) -> None:
    console.print(f"[bold red]error:[/] {exc}")
    raise typer.Exit(code=1)


@data_app.command("synth")
def data_synth(
    dataset: DatasetOpt = "mimic-iv",
    data_dir: DataDir = None,
    patients: Annotated[int, typer.Option(help="Number of patients to generate.")] = 200,
    seed: Annotated[int, typer.Option(help="Random seed; the same seed gives identical tables.")] = 42,
) -> None:
    """Write a deterministic synthetic dataset with the official schemas into the data directory."""
    from m4agent.synth import synthesize

    try:
        path = synthesize(dataset, resolve_data_dir(data_dir), patients=patients, seed=seed)
    except M4AgentError as exc:
        _fail(exc)
    console.print(f"[green]wrote[/] {path}")


@data_app.command("load")
def data_load(
    src: Annotated[Path, typer.Option("--src", help="Folder in PhysioNet's layout (MIMIC-IV: hosp/ and icu/; "
                                      "eICU: flat camelCase *.csv.gz).")],
    dataset: DatasetOpt = "mimic-iv",
    data_dir: DataDir = None,
) -> None:
    """Load PhysioNet csv.gz files into DuckDB with the official column types (streaming, atomic)."""
    from m4agent.loader import load

    try:
        path = load(dataset, src, resolve_data_dir(data_dir))
    except M4AgentError as exc:
        _fail(exc)
    console.print(f"[green]loaded[/] {path}")


@data_app.command("download")
def data_download(
    dest: Annotated[Path, typer.Option("--dest", help="Folder to download into.")],
    dataset: Annotated[str, typer.Option("--dataset", help="mimic-iv-demo or eicu-demo.")] = "mimic-iv-demo",
    base_url: Annotated[str | None, typer.Option("--base-url", help="Mirror to download from "
                                                 "(default: PhysioNet).")] = None,
) -> None:
    """Download an open PhysioNet demo, verified against its published SHA-256 list; resumable."""
    from m4agent.download import download

    try:
        path = download(dataset, dest, base_url=base_url)
    except M4AgentError as exc:
        _fail(exc)
    console.print(f"[green]downloaded[/] {path}")


@reference_app.command("build")
def reference_build(
    data_dir: DataDir = None,
    select: Annotated[str | None, typer.Option("--select", help="dbt node selection, e.g. 'sofa+'.")] = None,
) -> None:
    """Run `dbt build` against the data directory's databases (models and their tests)."""
    from m4agent.dbt_runner import build

    try:
        build(resolve_data_dir(data_dir), select=select)
    except M4AgentError as exc:
        _fail(exc)


@app.command("quickstart")
def quickstart(
    data_dir: DataDir = None,
    patients: Annotated[int, typer.Option(help="Patients per synthetic dataset.")] = 200,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 42,
) -> None:
    """The main job on the embedded default: synthesize MIMIC-IV and eICU, then `dbt build` everything."""
    from m4agent.dbt_runner import build
    from m4agent.synth import synthesize

    root = resolve_data_dir(data_dir)
    try:
        for dataset in ("mimic-iv", "eicu"):
            path = synthesize(dataset, root, patients=patients, seed=seed)
            console.print(f"[green]synthesized[/] {dataset} -> {path}")
        build(root)
    except M4AgentError as exc:
        _fail(exc)
    console.print(f"[bold green]done[/]: databases and references in {root}")


if __name__ == "__main__":  # pragma: no cover
    app()
