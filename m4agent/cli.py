"""The ``m4agent`` command line: wiring only; each module owns its own work.

    Data            m4agent quickstart; m4agent data synth|load|download
    References      m4agent reference build|export; m4agent tasks list|show; m4agent export harbor
    Grading         m4agent grade TASK OUTPUT.csv (or --results-root DIR for a campaign)
    Agents          m4agent doctor; m4agent run TASK --agent A; m4agent campaign plan|run|status;
                    m4agent model-server
    Reports         m4agent report; m4agent view
    Maintenance     m4agent tasks skills

Conventions every command follows (``guarded``): one line for an expected failure (``M4AgentError``
and whatever ``errors.explain`` recognises), exit 130 on Ctrl-C (``interrupts``), the data directory
printed first (``paths.describe``), writers holding the data directory's lock (``locking``), and
usage errors exiting 1 rather than click's 2, which `grade` and `run` keep for a strict failure.
"""

from __future__ import annotations

import atexit
import functools
import gc
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperArgument, TyperGroup

try:  # typer 0.29 carries its own copy of click; earlier versions use click itself
    from typer import _click as click
except ImportError:  # pragma: no cover
    import click  # type: ignore[no-redef]

from m4agent import interrupts, locking, progress
from m4agent.cli_options import DataDir, NoFail, Patients, Seed, TasksDir, announce_data_dir
from m4agent.errors import EXIT_CODES_HELP, EXIT_ERROR, EXIT_INTERRUPTED, M4AgentError, explain
from m4agent.paths import database_path

console = Console(stderr=True, soft_wrap=True)

F = TypeVar("F", bound=Callable[..., Any])


# The commands in the order and panels --help shows them (the README's order: data, references,
# grading, agents, reports), and the maintainers' commands apart.
PANELS = {
    "Data": ("quickstart", "data"),
    "References": ("reference", "tasks", "export"),
    "Grading": ("grade", "explain"),
    "Agents": ("doctor", "run", "campaign", "model-server"),
    "Reports": ("report", "view"),
}
MAINTENANCE = {("tasks", "skills")}  # subcommands for the project's maintainers, in a panel of their own


class _Argument(TyperArgument):
    """An argument whose --help shows its plain name (TASK), without typer's type label beside it."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


def _metavar(param: Any) -> str:
    """A plain metavar for an option that names none (DIR, FILE, N, or its name: MODEL, AGENT)."""
    described = getattr(param, "type_descriptor", None)  # typer >= 0.29 describes types itself
    if described is not None:
        kind = "path" if described.is_path else getattr(described.annotation, "__name__", "")
    else:
        kind = param.type.name
    if kind in ("int", "integer"):
        return "N"
    if kind == "float":
        return "NUMBER"
    if kind == "path":
        return "DIR" if param.name.endswith(("dir", "root", "src", "dest", "certs")) else "FILE"
    long = max(param.opts, key=len).lstrip("-")
    return long.rsplit("-", 1)[-1].upper()


def _plain_help(command: Any, path: tuple[str, ...] = ()) -> None:
    """Plain metavars in every --help (``--dir DIR``; a flag shows none: ``--json``, never ``<bool>``)
    and the maintainers' subcommands in their own panel."""
    made = command.get_help_option(click.Context(command))  # made once and kept (click >= 8.2)
    for param in [*command.params, *([made] if made is not None else [])]:
        if isinstance(param, TyperArgument):
            param.metavar = param.metavar or param.name.upper()
            param.__class__ = _Argument
        elif getattr(param, "is_flag", False):
            param.metavar = ""
        elif param.metavar is None:
            param.metavar = _metavar(param)
    for name, sub in getattr(command, "commands", {}).items():
        if path + (name,) in MAINTENANCE:
            sub.rich_help_panel = "Maintenance"
        _plain_help(sub, path + (name,))


class _Group(TyperGroup):
    """The top-level group: its commands in panels (``PANELS``), plain metavars, and click's usage errors
    exiting 1 (usage or input error), not 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        ordered = {}
        for panel, names in PANELS.items():
            for name in names:
                command = self.commands.pop(name)
                command.rich_help_panel = panel
                ordered[name] = command
        if self.commands:
            raise RuntimeError(f"commands in no help panel: {', '.join(self.commands)}")
        self.commands = ordered
        _plain_help(self)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        # The process ends after the command: Python's last garbage collection need not walk what
        # the command leaves behind (dbt's parsed project, about a second of exit after a build).
        atexit.register(gc.freeze)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()
            sys.exit(0)
        except click.exceptions.ClickException as exc:
            if isinstance(exc, click.exceptions.UsageError):
                exc.exit_code = EXIT_ERROR
            from typer import rich_utils

            rich_utils.rich_format_error(exc)
            sys.exit(exc.exit_code)
        except typer.Abort:
            sys.exit(EXIT_INTERRUPTED)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    cls=_Group,
    help=(
        "m4agent: dbt-based references and grading for benchmarks of AI coding agents "
        "on clinical data (MIMIC-IV, eICU). Start with `m4agent quickstart`.\n\n" + EXIT_CODES_HELP
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="Populate the source databases: synthesize, load PhysioNet files, download demos.",
                       no_args_is_help=True)
reference_app = typer.Typer(help="Build the mimiciv_derived concepts and the reference models with dbt; "
                            "export a reference as CSV.", no_args_is_help=True)
tasks_app = typer.Typer(help="The 28 M4Bench tasks: columns, thresholds, drop lists and reference models.",
                        no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(reference_app, name="reference")
app.add_typer(tasks_app, name="tasks")


def _version() -> str:
    try:
        return version("m4agent")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"m4agent {_version()}")
        raise typer.Exit()


@app.callback()
def _main(
    show_version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                               help="Print the version and exit.")] = False,
) -> None:
    """m4agent: dbt-based references and grading for benchmarks of AI coding agents on clinical data."""


def guarded(func: F) -> F:
    """Run a command with the conventions of the module docstring."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with interrupts.handling_interrupts():
                return func(*args, **kwargs)
        except KeyboardInterrupt:
            _interrupted()
        except Exception as exc:
            if interrupts.requested():  # what Ctrl-C broke (DuckDB: 'Query interrupted', a failed dbt run)
                _interrupted()
            if isinstance(exc, M4AgentError):
                _fail(str(exc))
            message = explain(exc)
            if message is None:
                raise
            _fail(message)

    return wrapper  # type: ignore[return-value]


def _interrupted() -> None:
    console.print("[yellow]interrupted[/]: stopped; files are written whole or not at all, so running the "
                  "command again continues cleanly", soft_wrap=True)
    raise typer.Exit(EXIT_INTERRUPTED) from None


def _fail(message: str) -> None:
    # One unwrapped line, with any [brackets] in paths or messages printed literally.
    console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code=EXIT_ERROR)


from m4agent.harness.cli import campaign_app, doctor, run_one  # noqa: E402  (wiring only)

for _command in campaign_app.registered_commands:
    _command.callback = guarded(_command.callback) if _command.callback else None
app.add_typer(campaign_app, name="campaign")
app.command("run")(guarded(run_one))
app.command("doctor")(guarded(doctor))
from m4agent.export.cli import export_app  # noqa: E402, I001  (wiring only)
for _command in export_app.registered_commands:
    _command.callback = guarded(_command.callback) if _command.callback else None
app.add_typer(export_app, name="export")
from m4agent.reports.cli import report  # noqa: E402, I001  (wiring only)
app.command("report")(guarded(report))
from m4agent.model_server.cli import model_server  # noqa: E402, I001  (wiring only)
from m4agent.reports.view import view_command  # noqa: E402, I001  (wiring only)
app.command("model-server")(guarded(model_server))
app.command("view")(guarded(view_command))

def _with_exit_codes(typer_app: typer.Typer) -> None:
    """Every command's --help ends with the one statement of the exit codes (``errors.EXIT_CODES``)."""
    for command in typer_app.registered_commands:
        command.epilog = command.epilog or EXIT_CODES_HELP
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _with_exit_codes(group.typer_instance)


NoWait = Annotated[bool, typer.Option("--no-wait", help="Fail at once when another m4agent process is "
                                      "using the data directory, instead of waiting for it.")]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Show dbt's raw log instead of the "
                                       "progress bar (it always goes to DIR/dbt/logs/dbt.log).")]
DatasetOpt = Annotated[str, typer.Option("--dataset", help="mimic-iv or eicu.")]


@contextmanager
def _data_dir(data_dir: Path | None, writes: bool, no_wait: bool = False) -> Iterator[Path]:
    """Resolve and print the data directory, then hold its lock (exclusive for ``writes``)."""
    root = announce_data_dir(data_dir, console)
    if not writes and not root.is_dir():
        raise M4AgentError(f"data directory {root} does not exist; create it with `m4agent quickstart` "
                           "or pass --data-dir the folder holding mimic_iv.duckdb")
    locking.set_wait_default(not no_wait)
    with locking.data_dir_lock(root, exclusive=writes, wait=not no_wait, on_wait=_say):
        yield root


def _say(message: str) -> None:
    console.print(f"[yellow]{escape(message)}[/]", soft_wrap=True)


def _remove_partials(root: Path, dataset: str) -> None:
    """Delete what an interrupted synthesis left under its temporary name (the finished file is untouched)."""
    target = database_path(root, dataset)
    for leftover in (Path(f"{target}.partial"), Path(f"{target}.partial.wal")):
        leftover.unlink(missing_ok=True)


def _synthesize(dataset: str, root: Path, patients: int, seed: int, edge_cases: bool = False) -> Path:
    from m4agent.data.synth import synthesize

    try:
        with progress.status(f"synthesizing {dataset} ({patients} patients, seed {seed})"):
            return synthesize(dataset, root, patients=patients, seed=seed, edge_cases=edge_cases)
    except BaseException:
        _remove_partials(root, dataset)
        raise


@data_app.command("synth")
@guarded
def data_synth(
    dataset: DatasetOpt = "mimic-iv",
    data_dir: DataDir = None,
    patients: Patients = 200,
    seed: Seed = 42,
    edge_cases: Annotated[bool, typer.Option("--edge-cases", help="Also plant values at every cut-point, "
                                             "negative and zero values, duplicates at one time, ties, window "
                                             "edges and unit variants.")] = False,
    no_wait: NoWait = False,
) -> None:
    """Write a deterministic synthetic dataset with the official schemas into the data directory."""
    if patients < 1:
        raise M4AgentError("--patients must be at least 1")
    with _data_dir(data_dir, writes=True, no_wait=no_wait) as root:
        path = _synthesize(dataset, root, patients, seed, edge_cases)
    console.print(f"[green]wrote[/] {escape(str(path))}; next: `m4agent reference build`")


@data_app.command("load")
@guarded
def data_load(
    src: Annotated[Path, typer.Option("--src", help="Folder in PhysioNet's layout (MIMIC-IV: hosp/ and icu/; "
                                      "eICU: flat camelCase *.csv.gz).")],
    dataset: DatasetOpt = "mimic-iv",
    data_dir: DataDir = None,
    no_wait: NoWait = False,
) -> None:
    """Load PhysioNet csv.gz files into DuckDB with the official column types (streaming, atomic)."""
    from m4agent.data.load import load

    with _data_dir(data_dir, writes=True, no_wait=no_wait) as root:
        path = load(dataset, src, root)
    console.print(f"[green]loaded[/] {escape(str(path))}; next: `m4agent reference build`")


@data_app.command("download")
@guarded
def data_download(
    dest: Annotated[Path, typer.Option("--dest", help="Folder to download into (then `m4agent data load "
                                       "--src` it).")],
    dataset: Annotated[str, typer.Option("--dataset", help="mimic-iv-demo or eicu-demo.")] = "mimic-iv-demo",
    base_url: Annotated[str | None, typer.Option("--base-url", help="Mirror to download from "
                                                 "(default: PhysioNet).")] = None,
) -> None:
    """Download an open PhysioNet demo, verified against its published SHA-256 list; resumable."""
    from m4agent.data.download import download

    path = download(dataset, dest, base_url=base_url)
    console.print(f"[green]downloaded[/] {escape(str(path))}; next: `m4agent data load --src {escape(str(path))}`")


def _build(root: Path, select: str | None, full_tests: bool = False, unit_tests: bool = False,
           threads: int | None = None) -> float:
    """dbt build with the progress bar and a closing line; its seconds."""
    from m4agent.dbt.runner import build

    started = time.perf_counter()
    build(root, select=select, full_tests=full_tests, unit_tests=unit_tests, threads=threads)
    tally = progress.last_tally()
    if tally is not None and not progress.verbose():
        console.print(f"dbt build: {tally.line()}")
    return time.perf_counter() - started


@reference_app.command("build")
@guarded
def reference_build(
    data_dir: DataDir = None,
    select: Annotated[str | None, typer.Option("--select", metavar="SELECTOR", help="dbt node selection, e.g. '+ref_sofa_24h' "
                                               "(the SOFA reference and what it is built from).")] = None,
    full_tests: Annotated[bool, typer.Option("--full-tests", help="Also run the deeper data tests of the "
                                             "staging views and the intermediate concepts (ranges, accepted "
                                             "values, relationships, keys: they warn), as CI does.")] = False,
    unit_tests: Annotated[bool, typer.Option("--unit-tests", help="Also run the dbt unit tests (hand-worked "
                                             "rows pinning the scoring logic; they test code, not data).")] = False,
    threads: Annotated[int | None, typer.Option("--threads", help="Models dbt builds at once (default: "
                                                "$M4AGENT_DBT_THREADS, else the machine's cores).",
                                                show_default=False)] = None,
    target: Annotated[str, typer.Option("--target", metavar="TARGET", help="duckdb (the data directory's "
                                        "databases) or bigquery (PhysioNet's hosted datasets into the project "
                                        "$M4AGENT_BQ_PROJECT; docs/scale.md).")] = "duckdb",
    compile_only: Annotated[bool, typer.Option("--compile-only", help="With --target bigquery: compile the SQL "
                                               "without running a query (no credentials used, nothing billed).")]
    = False,
    dbt_vars: Annotated[str | None, typer.Option("--vars", metavar="JSON", help="With --target bigquery: dbt vars "
                                                 "naming other hosted datasets, e.g. '{\"mimiciv_hosp_schema\": "
                                                 "\"mimiciv_hosp\"}'.", show_default=False)] = None,
    verbose: Verbose = False,
    no_wait: NoWait = False,
) -> None:
    """Run `dbt build` against the data directory's databases: the models and the data tests that guard
    the references (keys, grain, contracts, value ranges).

    With only one dataset's database present, builds what that dataset serves and says what it skipped.
    With --target bigquery, builds them on BigQuery from PhysioNet's hosted datasets (docs/scale.md)."""
    if threads is not None and threads < 1:
        raise M4AgentError("--threads must be at least 1")
    if target not in ("duckdb", "bigquery"):
        raise M4AgentError(f"--target must be duckdb or bigquery, not {target!r}")
    if target == "duckdb" and (compile_only or dbt_vars):
        raise M4AgentError("--compile-only and --vars go with --target bigquery")
    progress.set_verbose(verbose)
    if target == "bigquery":
        _build_on_bigquery(data_dir, select, compile_only, full_tests, unit_tests, dbt_vars, no_wait, threads)
        return
    with _data_dir(data_dir, writes=True, no_wait=no_wait) as root:
        seconds = _build(root, select, full_tests, unit_tests, threads)
    console.print(f"[bold green]built[/] in {seconds:.0f} s (dbt's log: {escape(str(root / 'dbt' / 'logs' / 'dbt.log'))})")
    _next_steps()


def _build_on_bigquery(data_dir: Path | None, select: str | None, compile_only: bool, full_tests: bool,
                       unit_tests: bool, dbt_vars: str | None, no_wait: bool, threads: int | None) -> None:
    """`reference build --target bigquery`: the data directory only keeps dbt's artefacts and log."""
    from m4agent import bigquery

    try:
        extra = json.loads(dbt_vars) if dbt_vars else {}
    except json.JSONDecodeError as exc:
        raise M4AgentError(f"--vars is not JSON ({exc.msg}); e.g. '{{\"eicu_schema\": \"eicu_crd\"}}'") from None
    if not isinstance(extra, dict):
        raise M4AgentError("--vars must be a JSON object of dbt vars")
    bigquery.check_ready()
    started = time.perf_counter()
    with _data_dir(data_dir, writes=True, no_wait=no_wait) as root:
        artefacts = bigquery.build(root, select, compile_only, full_tests, unit_tests, extra, threads)
    done = "compiled" if compile_only else "built"
    console.print(f"[bold green]{done}[/] on BigQuery in {time.perf_counter() - started:.0f} s (compiled SQL in "
                  f"{escape(str(artefacts / 'compiled'))}; dbt's log: "
                  f"{escape(str(root / 'dbt' / 'logs' / 'dbt.log'))})")


def _next_steps() -> None:
    console.print("next steps:\n"
                  "  m4agent tasks list                                      the 28 tasks\n"
                  "  m4agent reference export mimic-sofa-24h --out sofa.csv  a reference as CSV\n"
                  "  m4agent grade mimic-sofa-24h sofa.csv                   grade an output (here: 1.0)\n"
                  "  dbt docs generate && dbt docs serve                     browse the SQL (see README)")


@reference_app.command("export")
@guarded
def reference_export(
    task: Annotated[str, typer.Argument(help="Task name, e.g. mimic-sofa-24h (see `m4agent tasks list`).")],
    out: Annotated[Path, typer.Option("--out", help="CSV file to write; FILE.manifest.json goes beside it.")],
    data_dir: DataDir = None,
    no_wait: NoWait = False,
) -> None:
    """Write a task's reference as deterministic CSV (required columns, sorted by key) plus a manifest."""
    from m4agent.reference_export import export, manifest_path

    if out.is_dir():
        raise M4AgentError(f"--out {out} is a folder; name the CSV file to write, e.g. --out {out / (task + '.csv')}")
    with _data_dir(data_dir, writes=False, no_wait=no_wait) as root:
        path = export(task, root, out)
    console.print(f"[green]wrote[/] {escape(str(path))} and {escape(str(manifest_path(path)))}; next: "
                  f"`m4agent grade {task} {escape(str(path))}`")


@reference_app.command("variants")
@guarded
def reference_variants(
    tasks: Annotated[list[str], typer.Argument(help="Task names, e.g. mimic-sofa-24h (see `m4agent tasks list`).")],
    data_dir: DataDir = None,
    no_wait: NoWait = False,
) -> None:
    """Build each task's reference under every single alternative reading of its declared conventions
    (its YAML's meta.conventions), as tables beside the reference, in one dbt run (docs/explain.md)."""
    from rich.table import Table

    from m4agent import conventions
    from m4agent.dbt import duckdb_session
    from m4agent.registry import load_task

    chosen = [load_task(name) for name in tasks]
    references = sorted({task.reference_model for task in chosen if conventions.variants_of_task(task)})
    with _data_dir(data_dir, writes=True, no_wait=no_wait) as root:
        seconds = conventions.build_variants(root, references)
        con = duckdb_session.connect(root, read_only=True)
        try:
            table = Table("variant table (schema reference)", "reading", "rows", box=None)
            for reference in references:
                for variant in conventions.variants(reference):
                    rows = con.execute(f'SELECT COUNT(*) FROM "reference"."{variant.model}"').fetchone()[0]
                    table.add_row(variant.model, variant.label, str(rows))
        finally:
            con.close()
    _stdout_console().print(table)
    console.print(f"[bold green]built[/] {sum(len(conventions.variants(r)) for r in references)} variants in "
                  f"{seconds:.0f} s; next: `m4agent explain RUN_OR_CAMPAIGN`")


@app.command("explain")
@guarded
def explain_runs(
    path: Annotated[Path, typer.Argument(help="A campaign folder, a run folder of one, or a results tree "
                                         "(run folders holding run.json and output.csv).")],
    data_dir: DataDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per run, one a line.")] = False,
    no_wait: NoWait = False,
) -> None:
    """Explain each run's mismatches: grade its output against every variant of its reference (one
    convention read otherwise) and name the readings that explain them, or say none does.

    A campaign's runs are diagnosed against its own data directory unless --data-dir names another;
    build the variants first (`m4agent reference variants TASK...`)."""
    from rich.table import Table

    from m4agent import explain as diagnosis

    found = diagnosis.runs_under(path, data_dir)
    results: dict[str, Any] = {}
    for root in sorted({root for _, root in found.runs}, key=str):
        with _data_dir(root, writes=True, no_wait=no_wait) as held:
            results.update(diagnosis.diagnose([run for run, at in found.runs if at == root], held))
    out = _stdout_console()
    for run, _ in found.runs:
        found_diagnosis = results[run.run_id]
        if as_json:
            record = {**diagnosis.as_record(found_diagnosis), "condition": found.conditions.get(run.run_id)}
            out.print_json(json.dumps(record), indent=None)
        else:
            out.print(f"[bold]{escape(run.task.name)}[/] {escape(run.run_id)}: {escape(found_diagnosis.summary())}")
    for run_id, reason in found.skipped:
        console.print(f"[yellow]skipped[/] {escape(run_id)}: {escape(reason)}", soft_wrap=True)
    for written in diagnosis.save(found, results):  # what `m4agent view` and `m4agent report` show
        console.print(f"wrote {escape(str(written))}", soft_wrap=True)
    if not as_json and results:
        # a campaign's departures per condition (do skills remove the departures they document?)
        by_condition: dict[str, list[Any]] = {}
        for run_id, found_diagnosis in results.items():
            by_condition.setdefault(found.conditions.get(run_id, ""), []).append(found_diagnosis)
        for condition, diagnoses in sorted(by_condition.items()):
            table = Table("reading", "runs it explains best", "runs it explains", box=None,
                          title=f"condition {condition}: {len(diagnoses)} runs" if condition else None,
                          title_justify="left")
            for model, best, anywhere in diagnosis.departures(diagnoses):
                table.add_row(model, str(best), str(anywhere))
            out.print(table)
        silent = sorted({r.variant.model for d in results.values() for r in d.indistinguishable})
        if silent:
            out.print(f"readings that change no row of their reference on this data (never named): "
                      f"{', '.join(silent)}", soft_wrap=True)


def _stdout_console() -> Console:
    """Standard output; 160 columns wide when it is a pipe or file (rich would assume 80)."""
    piped = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(width=160) if piped else Console()


COLUMN_NOTES = {
    "keys": "the columns identifying a row (a stay, or a stay and a time)",
    "cov": "row coverage: the share of the reference's keys an output must contain to pass",
    "acc": "accuracy: the share of matched rows whose value must agree, per scored column, to pass",
    "reference model": "the dbt model (schema reference) the task is graded against",
}


def _task_record(task: Any) -> dict[str, Any]:
    return {
        "name": task.name, "family": task.family, "mode": task.mode, "dataset": task.dataset,
        "description": task.description, "reference": task.reference, "reference_model": task.reference_model,
        "key_columns": list(task.key_columns), "value_columns": list(task.value_columns),
        "required_columns": list(task.required_columns), "scored_columns": list(task.scored_columns),
        "row_coverage_threshold": task.row_coverage_threshold, "accuracy_threshold": task.accuracy_threshold,
        "tolerance": dict(task.tolerance), "drop_tables": list(task.drop_tables),
    }


@tasks_app.command("list")
@guarded
def tasks_list(
    tasks_dir: TasksDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per task, one a line.")] = False,
) -> None:
    """Print every task: family, mode, dataset, key columns, thresholds and reference model."""
    from rich import box
    from rich.table import Table

    from m4agent.registry import TASKS_DIR, all_tasks

    tasks = all_tasks(tasks_dir.resolve() if tasks_dir else TASKS_DIR)
    if as_json:
        for task in tasks.values():
            sys.stdout.write(json.dumps(_task_record(task)) + "\n")
        return
    table = Table(title="M4Bench tasks", box=box.SIMPLE_HEAD, pad_edge=False)
    for header in ("task", "family", "mode", "dataset", "keys", "cov", "acc", "reference model"):
        table.add_column(header, overflow="fold")
    for task in tasks.values():
        table.add_row(task.name, task.family, task.mode, task.dataset, ", ".join(task.key_columns),
                      f"{task.row_coverage_threshold:g}", f"{task.accuracy_threshold:g}", task.reference_model)
    out = _stdout_console()
    out.print(table)
    out.print(f"{len(tasks)} tasks, {len({t.family for t in tasks.values()})} families, "
              f"{len({t.reference_model for t in tasks.values()})} reference models")
    for header, note in COLUMN_NOTES.items():
        out.print(f"  {header}: {note}")


@tasks_app.command("show")
@guarded
def tasks_show(
    task: Annotated[str, typer.Argument(help="Task name, e.g. mimic-sofa-24h.")],
    tasks_dir: TasksDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the task as one JSON object (with its "
                                          "rendered instruction).")] = False,
) -> None:
    """Print one task in full: definition, columns, tolerances, drop list and instruction.

    The instruction is shown as an agent receives it, placeholders such as {output_path} filled in."""
    from rich.markdown import Markdown
    from rich.table import Table

    from m4agent.harness.instructions import render_task_text
    from m4agent.registry import TASKS_DIR, load_task

    found = load_task(task, tasks_dir.resolve() if tasks_dir else TASKS_DIR)
    instruction = render_task_text(found)
    if as_json:
        sys.stdout.write(json.dumps({**_task_record(found), "folder": str(found.path),
                                     "instruction": instruction}) + "\n")
        return
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
        ("row coverage", f"{found.row_coverage_threshold:g} (share of the reference's keys an output must contain)"),
        ("accuracy", f"{found.accuracy_threshold:g} (share of matched rows whose value must agree, per column)"),
        ("tolerance", ", ".join(f"{k}: {v:g}" for k, v in found.tolerance.items()) or "none (exact)"),
        ("dropped tables", "\n".join(found.drop_tables) or "none"),
        ("folder", str(found.path)),
    ]
    for label, value in rows:
        facts.add_row(label, escape(value))
    out = _stdout_console()
    out.print(facts)
    out.rule("instruction")
    out.print(Markdown(instruction))


@tasks_app.command("skills")
@guarded
def tasks_skills(
    check: Annotated[bool, typer.Option("--check", help="Write nothing; list the files that differ from "
                                        "the reference YAML and exit 1 if any do.")] = False,
    compile_sql: Annotated[bool, typer.Option("--compile", help="Compile the references with dbt (once) "
                                              "for the rawsql skills; without it their SQL is kept.")] = False,
) -> None:
    """Render skills, decoys, rawsql skills, operational specs and PROVENANCE.yaml of m4agent/tasks
    from the reference models' YAML (meta.skill); see docs/skills.md."""
    from m4agent.registry import TASKS_DIR, all_tasks
    from m4agent.skills.render import refresh

    changed = refresh(all_tasks(TASKS_DIR), check=check, compile_sql=compile_sql)
    for path in changed:
        typer.echo(f"{'differs' if check else 'wrote'} {path.relative_to(TASKS_DIR.parent.parent)}")
    typer.echo(f"{len(changed)} file(s) {'differ' if check else 'written'} under {TASKS_DIR}")
    if check and changed:
        raise typer.Exit(EXIT_ERROR)


@app.command("grade")
@guarded
def grade(
    task: Annotated[str | None, typer.Argument(help="Task name, e.g. mimic-sofa-24h.", show_default=False)] = None,
    output: Annotated[Path | None, typer.Argument(help="The agent's output CSV.", show_default=False)] = None,
    data_dir: DataDir = None,
    results_root: Annotated[Path | None, typer.Option(
        "--results-root", metavar="DIR", help="Grade every <run>/output.csv + <run>/run.json under DIR in one pass; "
        "writes <run>/result.json.", show_default=False)] = None,
    force: Annotated[bool, typer.Option("--force", help="Regrade runs that already have a result.json.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object (or one per line "
                                          "with --results-root) instead of a summary.")] = False,
    expectations: Annotated[bool, typer.Option("--expectations", help="Also validate the strict checks "
                                               "with the Great Expectations suites, for each run (slower); adds expectations_pass and "
                                               "expectations_failed to the results.")] = False,
    tasks_dir: TasksDir = None,
    no_fail: NoFail = False,
    no_wait: NoWait = False,
) -> None:
    """Grade agent output against a task's reference with M4Bench's rules (dbt models, one pass).

    Exit 0 when every graded output passes the strict checks, 2 when one fails (--no-fail: 0)."""
    from m4agent.grading.cli import run_grade

    with _data_dir(data_dir, writes=True, no_wait=no_wait) as root:
        code = run_grade(task, output, root, results_root, force, as_json, expectations, tasks_dir, no_fail)
    if code:
        raise typer.Exit(code)


@app.command("quickstart")
@guarded
def quickstart(
    data_dir: DataDir = None,
    patients: Patients = 200,
    seed: Seed = 42,
    verbose: Verbose = False,
    no_wait: NoWait = False,
) -> None:
    """The main job on the embedded default: synthesize MIMIC-IV and eICU, then `dbt build` everything."""
    if patients < 1:
        raise M4AgentError("--patients must be at least 1")
    progress.set_verbose(verbose)
    started = time.perf_counter()
    with _data_dir(data_dir, writes=True, no_wait=no_wait) as root:
        for dataset in ("mimic-iv", "eicu"):
            path = _synthesize(dataset, root, patients, seed)
            console.print(f"[green]synthesized[/] {dataset} ({patients} patients) -> {escape(str(path))}")
        _build(root, None)
    console.print(f"[bold green]done[/] in {time.perf_counter() - started:.0f} s: databases and references "
                  f"in {escape(str(root))}")
    _next_steps()


_with_exit_codes(app)

if __name__ == "__main__":  # pragma: no cover
    app()
