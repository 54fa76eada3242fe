"""The ``m4agent`` command line: wiring only; each module owns its own work.

    m4agent quickstart                 synthesize both datasets and build the references
    m4agent data synth|load|download   populate the source databases
    m4agent reference build            dbt build of mimiciv_derived and the references
    m4agent tasks list|show            the 28 benchmark tasks
    m4agent grade TASK OUTPUT.csv      score an agent's CSV (or --results-root DIR for a campaign)
    m4agent run TASK --agent A         one task, one agent, in a locked container, graded
    m4agent campaign plan|run|status   a matrix of runs, crash-safe, graded as they finish
    m4agent doctor                     Docker, the agent image, data, disk, clock
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

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
tasks_app = typer.Typer(help="The 28 M4Bench tasks: columns, thresholds, drop lists and reference models.",
                        no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")

from m4agent.harness.cli import campaign_app, doctor, run_one  # noqa: E402  (wiring only)

app.add_typer(campaign_app, name="campaign")
app.command("run")(run_one)
app.command("doctor")(doctor)

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help=f"Data directory holding mimic_iv.duckdb and eicu.duckdb "
                 f"(default ./m4data, or ${ENV_DATA_DIR}).", show_default=False),
]
DatasetOpt = Annotated[str, typer.Option("--dataset", help="mimic-iv or eicu.")]


def _fail(exc: Exception) -> None:
    # One unwrapped line, with any [brackets] in paths or messages printed literally.
    console.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
    raise typer.Exit(code=1)


@data_app.command("synth")
def data_synth(
    dataset: DatasetOpt = "mimic-iv",
    data_dir: DataDir = None,
    patients: Annotated[int, typer.Option(help="Number of patients to generate.")] = 200,
    seed: Annotated[int, typer.Option(help="Random seed; the same seed gives identical tables.")] = 42,
    edge_cases: Annotated[bool, typer.Option("--edge-cases", help="Also plant values at every cut-point, "
                                             "negative and zero values, duplicates at one time, ties, window "
                                             "edges and unit variants.")] = False,
) -> None:
    """Write a deterministic synthetic dataset with the official schemas into the data directory."""
    from m4agent.synth import synthesize

    try:
        path = synthesize(dataset, resolve_data_dir(data_dir), patients=patients, seed=seed, edge_cases=edge_cases)
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


@reference_app.command("export")
def reference_export(
    task: Annotated[str, typer.Argument(help="Task name, e.g. mimic-sofa-24h (see `m4agent tasks list`).")],
    out: Annotated[Path, typer.Option("--out", help="CSV file to write; FILE.manifest.json goes beside it.")],
    data_dir: DataDir = None,
) -> None:
    """Write a task's reference as deterministic CSV (required columns, sorted by key) plus a manifest."""
    from m4agent.reference_export import export, manifest_path

    try:
        path = export(task, resolve_data_dir(data_dir), out)
    except M4AgentError as exc:
        _fail(exc)
    console.print(f"[green]wrote[/] {path} and {manifest_path(path)}")


def _stdout_console() -> Console:
    """Standard output; 160 columns wide when it is a pipe or file (rich would assume 80)."""
    piped = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(width=160) if piped else Console()


@tasks_app.command("list")
def tasks_list() -> None:
    """Print every task: family, mode, dataset, key columns, thresholds and reference model."""
    from rich import box
    from rich.table import Table

    from m4agent.registry import all_tasks

    table = Table(title="M4Bench tasks", box=box.SIMPLE_HEAD, pad_edge=False)
    for header in ("task", "family", "mode", "dataset", "keys", "cov", "acc", "reference model"):
        table.add_column(header, overflow="fold")
    tasks = all_tasks()
    for task in tasks.values():
        table.add_row(task.name, task.family, task.mode, task.dataset, ", ".join(task.key_columns),
                      f"{task.row_coverage_threshold:g}", f"{task.accuracy_threshold:g}", task.reference_model)
    out = _stdout_console()
    out.print(table)
    out.print(f"{len(tasks)} tasks, {len({t.family for t in tasks.values()})} families, "
              f"{len({t.reference_model for t in tasks.values()})} reference models")


@tasks_app.command("show")
def tasks_show(task: Annotated[str, typer.Argument(help="Task name, e.g. mimic-sofa-24h.")]) -> None:
    """Print one task in full: definition, columns, tolerances, drop list and instruction."""
    from rich.markdown import Markdown
    from rich.table import Table

    from m4agent.registry import load_task

    try:
        found = load_task(task)
    except M4AgentError as exc:
        _fail(exc)
    facts = Table(show_header=False, box=None, title=found.name, title_justify="left")
    facts.add_column(style="bold")
    facts.add_column(overflow="fold")
    rows = [
        ("description", found.description),
        ("family", found.family),
        ("mode", found.mode),
        ("dataset", found.dataset),
        ("reference", found.reference),
        ("reference model", found.reference_model),
        ("key columns", ", ".join(found.key_columns)),
        ("value columns", ", ".join(found.value_columns)),
        ("required columns", ", ".join(found.required_columns)),
        ("scored columns", ", ".join(found.scored_columns)),
        ("row coverage", f"{found.row_coverage_threshold:g}"),
        ("accuracy", f"{found.accuracy_threshold:g}"),
        ("tolerance", ", ".join(f"{k}: {v:g}" for k, v in found.tolerance.items()) or "none (exact)"),
        ("dropped tables", "\n".join(found.drop_tables) or "none"),
        ("folder", str(found.path)),
    ]
    for label, value in rows:
        facts.add_row(label, escape(value))
    out = _stdout_console()
    out.print(facts)
    out.rule("instruction")
    out.print(Markdown(found.instruction))


@app.command("grade")
def grade(
    task: Annotated[str | None, typer.Argument(help="Task name, e.g. mimic-sofa-24h.", show_default=False)] = None,
    output: Annotated[Path | None, typer.Argument(help="The agent's output CSV.", show_default=False)] = None,
    data_dir: DataDir = None,
    results_root: Annotated[Path | None, typer.Option(
        "--results-root", help="Grade every <run>/output.csv + <run>/run.json under DIR in one pass; "
        "writes <run>/result.json.", show_default=False)] = None,
    force: Annotated[bool, typer.Option("--force", help="Regrade runs that already have a result.json.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object (or one per line "
                                          "with --results-root) instead of a summary.")] = False,
    expectations: Annotated[bool, typer.Option("--expectations", help="Also validate the strict checks "
                                               "with the Great Expectations suites, for each run (slower); adds expectations_pass and "
                                               "expectations_failed to the results.")] = False,
    tasks_dir: Annotated[Path | None, typer.Option("--tasks-dir", help="Folder of task definitions "
                                                   "(default: the built-in tasks).", show_default=False)] = None,
) -> None:
    """Grade agent output against a task's reference with M4Bench's rules (dbt models, one pass)."""
    from m4agent.grading.cli import run_grade

    try:
        run_grade(task, output, resolve_data_dir(data_dir), results_root, force, as_json, expectations,
                  tasks_dir)
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
