"""Run dbt (programmatically) against a data directory's databases.

The dbt project lives at the repository root. Everything a call needs is passed to dbt as
arguments, never through the process environment (campaign worker threads run beside a grading
call): the DuckDB files through the ``duckdb_plugin`` plugin, the thread count as ``--threads``
(default: ``$M4AGENT_DBT_THREADS``, else the machine's cores), and the folders of the build's
artefacts (``manifest.json``, ``run_results.json``, logs) as ``--target-path`` and ``--log-path``,
under ``DIR/dbt/`` so they sit beside the databases they describe. dbt's programmatic runner is not
safe to run twice at once in one process, so calls take turns. dbt's saved parse is
shared by every data directory (``m4agent.dbt.parse_cache``), so only the first
run of a project version pays dbt's full parse.

What ``build`` runs by default (docs/scale.md): seeds, models, and the data tests
that guard the references (keys, grain, contracts, value ranges: schema
``reference``). The deeper data tests of the staging views and the intermediate
concepts carry the tag ``full`` (``dbt_project.yml``) and run with
``full_tests=True`` (``reference build --full-tests``); the unit tests test logic,
not data, and run with ``unit_tests=True`` (``--unit-tests``) and in CI
(tests/test_reference_unit_tests.py).

Data tests on the sources and intermediate layers warn rather than fail (see
``dbt_project.yml``), so dirty data never takes a reference away; ``build`` ends
with a data-quality summary of those warnings read from dbt's run results:
which tests warned, how many rows, and the table holding the failing rows.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from rich.console import Console

from m4agent.data.schema import tables
from m4agent.dbt.duckdb_session import release_dbt_handle
from m4agent.errors import M4AgentError
from m4agent.paths import PROJECT_ROOT, database_path

console = Console(stderr=True)
SUMMARY_LINES = 15  # findings listed after a build; the rest are counted


def artefact_dir(data_dir: Path) -> Path:
    return data_dir / "dbt"


def check_sources(data_dir: Path, datasets: Sequence[str] = ("mimic-iv", "eicu")) -> None:
    """Fail with one clear line when a source database or table is missing."""
    for dataset in datasets:
        db = database_path(data_dir, dataset)
        hint = (f"create it with `m4agent data synth --dataset {dataset} --data-dir {data_dir}` "
                f"or `m4agent data load --dataset {dataset} --src PATH --data-dir {data_dir}`")
        if not db.exists():
            raise M4AgentError(f"source database {db} not found; {hint}")
        con = duckdb.connect(str(db), read_only=True)
        try:
            present = {f"{s}.{t}" for s, t in con.execute(
                "SELECT table_schema, table_name FROM information_schema.tables").fetchall()}
        finally:
            con.close()
        for qualified in tables(dataset):
            if qualified not in present:
                raise M4AgentError(f"source table {qualified} missing from {db}; {hint}")


_ONE_CALL_AT_A_TIME = threading.Lock()  # dbt's runner keeps process-wide state (flags, adapters)


def default_threads() -> int:
    """dbt's threads (models run at once) unless ``$M4AGENT_DBT_THREADS`` says otherwise: the machine's
    cores. DuckDB runs every query on all cores too, from one shared pool, so more models at once add
    no CPU but keep the cores busy through dbt's own per-node work (compile, bookkeeping)."""
    given = os.environ.get("M4AGENT_DBT_THREADS")
    if given is None:
        return os.cpu_count() or 1
    if not given.isdigit() or int(given) < 1:
        raise M4AgentError(f"M4AGENT_DBT_THREADS must be a whole number of at least 1, not {given!r}")
    return int(given)


@dataclass(frozen=True)
class _Settings:
    """What every dbt call of a data directory is given, as dbt's options (``options``)."""

    target_dir: Path
    log_dir: Path
    threads: int

    def options(self, command: Sequence[str]) -> list[str]:
        """The options ``command`` (e.g. ``["build", ...]``, ``["docs", "generate"]``) accepts."""
        accepted = _accepted_options(tuple(arg for arg in command[:2] if not arg.startswith("-")))
        given = {"--log-path": str(self.log_dir), "--target-path": str(self.target_dir),
                 "--threads": str(self.threads)}
        found = [item for name, value in given.items() if name in accepted for item in (name, value)]
        return [*found, *(["--no-send-anonymous-usage-stats"] if "--send-anonymous-usage-stats" in accepted else [])]


@functools.cache
def _accepted_options(command: tuple[str, ...]) -> frozenset[str]:
    """The options of dbt's subcommand ``command`` (its name, and a group's subcommand name)."""
    from dbt.cli.main import cli

    found: Any = cli
    for name in command:
        commands = getattr(found, "commands", {})
        if name not in commands:
            break
        found = commands[name]
    return frozenset(option for param in getattr(found, "params", []) for option in param.opts)


def invoke(data_dir: Path, args: Sequence[str], project_dir: Path | None = None,
           target: str = "target", progress: str | None = None, threads: int | None = None) -> object:
    """Run one dbt command (e.g. ``["build", "--select", "sofa"]``); raise on failure.

    ``project_dir`` runs another dbt project (with its own ``profiles.yml``) in the same
    environment, e.g. a trimmed copy used in development; by default this repository's.
    ``target`` names the folder under ``DIR/dbt`` for dbt's artefacts: a caller whose vars
    differ from the reference build's (grading) keeps its own, so each keeps its saved
    parse (``partial_parse.msgpack``) and dbt does not re-parse the project every time.
    ``progress`` labels a progress bar shown instead of dbt's log, which then goes to the log file
    only (``--verbose``, see ``m4agent.progress``, keeps dbt's log on the terminal). ``threads``: the
    models dbt builds at once (default ``default_threads``).
    Ctrl-C during the run raises ``KeyboardInterrupt`` (dbt reports it as a failure otherwise).

    A command that runs nodes (``RUNS_NODES``) runs in two steps, ``dbt parse`` and then the
    command on the parsed project (:func:`_run_parsed`); of dbt's JSON artefacts it leaves
    ``manifest.json`` (written once per project version) and ``run_results.json``.
    """
    from m4agent import progress as shown
    from m4agent.dbt import duckdb_plugin, parse_cache

    project = str(project_dir or PROJECT_ROOT)
    target_dir = artefact_dir(data_dir) / target
    settings = _Settings(target_dir, artefact_dir(data_dir) / "logs", threads or default_threads())
    parse_key = parse_cache.project_key(Path(project), target, _options(args, SHAPING_OPTIONS))
    with _ONE_CALL_AT_A_TIME, duckdb_plugin.databases(database_path(data_dir, "mimic-iv"), _eicu_or_stand_in(data_dir)):
        parse_cache.restore(parse_key, target_dir)
        located = ["--project-dir", project, "--profiles-dir", project]
        quiet = progress is not None and not shown.verbose()
        try:
            if quiet:
                with shown.dbt_progress(progress or "dbt") as (on_event, _):
                    # nothing on the terminal but the bar; the log file keeps dbt's usual detail
                    file_level = [] if "--log-level-file" in args else ["--log-level-file", "debug"]
                    result = _run(args, [*located, "--log-level", "none", *file_level], [on_event],
                                  settings, parse_key)
            else:
                result = _run(args, located, [], settings, parse_key)
        finally:
            # dbt-duckdb keeps its DuckDB handle open after an in-process run; closed so that the
            # caller (and connections with other settings) can open the file
            release_dbt_handle()
        parse_cache.save(parse_key, target_dir)
    if isinstance(result.exception, KeyboardInterrupt):
        raise KeyboardInterrupt
    if not result.success:
        detail = f": {result.exception}" if result.exception else _node_errors(result.result)
        raise M4AgentError(
            f"dbt {' '.join(args)} failed{detail}; see {artefact_dir(data_dir) / 'logs' / 'dbt.log'}"
        )
    return result.result


RUNS_NODES = frozenset({"build", "run", "test", "seed", "compile"})  # commands run on a parsed project
SHAPING_OPTIONS = frozenset({"--vars", "--target", "-t"})  # options that change what dbt parses
LOG_OPTIONS = frozenset({"--log-level", "--log-level-file", "--log-format"})
LOG_FLAGS = frozenset({"--quiet", "-q"})


def _options(args: Sequence[str], names: frozenset[str]) -> list[str]:
    """The options among ``names`` in ``args``, each with its value."""
    return [option for i, arg in enumerate(args) if arg in names for option in args[i:i + 2]]


def _run(args: Sequence[str], common: Sequence[str], callbacks: list, settings: _Settings,
         parse_key: str) -> object:
    """dbt's result of ``args`` with the ``common`` options and the ``settings``, through
    :func:`_run_parsed` when the command runs nodes."""
    from dbt.cli.main import dbtRunner

    if not args or args[0] not in RUNS_NODES:
        return dbtRunner(callbacks=callbacks).invoke([*args, *common, *settings.options(args)])
    return _run_parsed(args, common, callbacks, settings, parse_key)


def _run_parsed(args: Sequence[str], common: Sequence[str], callbacks: list, settings: _Settings,
                parse_key: str) -> object:
    """``dbt parse``, then the command ``args`` on the parsed project, which dbt keeps in memory for
    the whole command (about 1,000 nodes, some hundred MB of Python objects).

    Python's garbage collector leaves the parse alone: it is off while dbt parses, and the parsed
    project is frozen out of it (``gc.freeze``) until the command ends. The project lives that long
    anyway, and otherwise each full collection walks all of it again while dbt's threads wait
    (seconds per build). The parse writes ``manifest.json`` (the project's nodes, their relations
    and tests) unless the target folder's is current (``parse_cache``); the command is run
    without dbt's JSON artefacts, whose end-of-run manifest would re-serialise every node, and its
    ``run_results.json`` is written here, as dbt writes it. ``--no-write-json`` in ``args`` leaves
    out both files.
    """
    from dbt.cli.main import dbtRunner

    from m4agent.dbt import parse_cache

    target_dir = settings.target_dir
    writes_json = "--no-write-json" not in args
    writes_manifest = writes_json and not parse_cache.manifest_is_current(parse_key, target_dir)
    shared = [*_options(args, SHAPING_OPTIONS | LOG_OPTIONS), *(arg for arg in args if arg in LOG_FLAGS)]
    gc.disable()
    try:
        parsed = dbtRunner(callbacks=callbacks).invoke(
            ["parse", *shared, *common, *settings.options(["parse"]),
             *(() if writes_manifest else ("--no-write-json",))])
        gc.freeze()
        gc.enable()
        if not parsed.success:
            return parsed
        if writes_manifest and (target_dir / parse_cache.MANIFEST_FILE).exists():
            parse_cache.stamp_manifest(parse_key, target_dir)
        result = dbtRunner(manifest=parsed.result, callbacks=callbacks).invoke(
            [*args, *common, *settings.options(args), *(("--no-write-json",) if writes_json else ())])
    finally:
        gc.enable()
        gc.unfreeze()
    if writes_json and hasattr(result.result, "write"):
        result.result.write(str(target_dir / "run_results.json"))
    return result


def _node_errors(execution: object) -> str:
    """': <error of a node>; ...' for (up to three of) the nodes that errored in a dbt run."""
    errors = []
    for result in getattr(execution, "results", None) or []:
        if getattr(result.status, "value", result.status) == "error":
            lines = [line.strip() for line in (result.message or "error").splitlines() if line.strip()]
            errors.append(" ".join(lines[:2]))  # dbt's 'Runtime Error in model ...' and the database's reason
    return ": " + "; ".join(errors[:3]) if errors else ""


@dataclass(frozen=True)
class DataQualityFinding:
    """One data test of the last build that did not pass."""

    test: str  # the test's name, e.g. accepted_range_int_mimiciv_organfailure__kdigo_creatinine_creat__150__0
    kind: str  # the generic test (accepted_range, unique, ...) or the singular test's name
    model: str  # the model or source it tests ('' when dbt does not say)
    column: str | None  # the tested column, for column tests
    status: str  # warn, fail or error
    rows: int | None  # failing rows (None when the test could not run)
    stored_in: str | None  # the table holding the failing rows, when stored


def data_quality_findings(data_dir: Path) -> list[DataQualityFinding]:
    """The data tests that warned, failed or errored in the data directory's last dbt run,
    from ``DIR/dbt/target/run_results.json`` (and the manifest, for the tested model),
    most failing rows first."""
    target = artefact_dir(data_dir) / "target"
    results_path = target / "run_results.json"
    if not results_path.exists():
        return []
    flagged = [result for result in json.loads(results_path.read_text()).get("results", [])
               if result.get("unique_id", "").startswith("test.") and result.get("status") in ("warn", "fail", "error")]
    if not flagged:  # the usual case: no need to read the manifest (megabytes of JSON)
        return []
    manifest_path = target / "manifest.json"
    nodes = json.loads(manifest_path.read_text()).get("nodes", {}) if manifest_path.exists() else {}
    findings = []
    for result in flagged:
        unique_id = result["unique_id"]
        node = nodes.get(unique_id, {})
        attached = node.get("attached_node") or next(iter(node.get("depends_on", {}).get("nodes", [])), "")
        name = node.get("name") or unique_id.split(".")[2]
        findings.append(DataQualityFinding(
            test=name,
            kind=(node.get("test_metadata") or {}).get("name") or name,
            model=attached.split(".")[-1] if attached else "",
            column=node.get("column_name"),
            status=result["status"],
            rows=result.get("failures"),
            stored_in=result.get("relation_name"),
        ))
    return sorted(findings, key=lambda f: (f.status == "warn", -(f.rows or 0), f.test))


def print_data_quality_summary(data_dir: Path, findings: Sequence[DataQualityFinding]) -> None:
    """A short, readable summary of the findings on stderr."""
    warned = [f for f in findings if f.status == "warn"]
    blocking = [f for f in findings if f.status != "warn"]
    if not findings:
        console.print("[green]data quality:[/] every data test passed")
        return
    console.print(f"[bold]data quality:[/] {len(warned)} test(s) warned, {len(blocking)} failed "
                  f"(warnings never block the references)")
    ordered = [*blocking, *warned]
    for finding in ordered[:SUMMARY_LINES]:
        rows = "could not run" if finding.rows is None else f"{finding.rows} row(s)"
        tested = f"{finding.model or '?'}{'.' + finding.column if finding.column else ''}"
        where = f" -> {finding.stored_in.replace(chr(34), '')}" if finding.stored_in else ""
        colour = "yellow" if finding.status == "warn" else "red"
        console.print(f"  [{colour}]{finding.status:5}[/] {rows:>11}  {finding.kind} on {tested}{where}",
                      soft_wrap=True, highlight=False)
    if len(ordered) > SUMMARY_LINES:
        console.print(f"  ... and {len(ordered) - SUMMARY_LINES} more (all in "
                      f"{artefact_dir(data_dir) / 'target' / 'run_results.json'})")
    console.print(f"  failing rows are kept in schema data_quality of {database_path(data_dir, 'mimic-iv')}; "
                  f"dbt's log: {artefact_dir(data_dir) / 'logs' / 'dbt.log'}")


FULL_TESTS_TAG = "full"  # dbt_project.yml tags the staging and intermediate data tests with it


def build_args(present: Sequence[str], full_tests: bool = False, unit_tests: bool = False) -> list[str]:
    """dbt's arguments for a build of the datasets ``present``: leaving out what the absent datasets
    serve, the data tests tagged ``full`` unless ``full_tests``, the unit tests unless ``unit_tests``."""
    excluded = [f"source:{source}+" for dataset, sources in _SOURCES.items() if dataset not in present
                for source in sources]
    if not full_tests:
        excluded.append(f"tag:{FULL_TESTS_TAG}")
    args = ["build", "--exclude", *excluded] if excluded else ["build"]
    return args if unit_tests else [*args, "--exclude-resource-type", "unit_test"]


def build(data_dir: Path, select: str | None = None,
          datasets: Sequence[str] = ("mimic-iv", "eicu"), full_tests: bool = False,
          unit_tests: bool = False, threads: int | None = None) -> list[DataQualityFinding]:
    """``dbt build`` (seeds, models, tests) against the data directory's databases.

    By default with the data tests that guard the references only; ``full_tests`` adds the
    deeper tests of the staging views and intermediate concepts, ``unit_tests`` the unit tests
    (module docstring). Ends with the data-quality summary of the build (printed even when
    the build fails) and returns its findings; raises M4AgentError when a model or a blocking
    test failed.
    """
    datasets = present_datasets(data_dir, datasets)
    check_sources(data_dir, datasets)
    args = build_args(datasets, full_tests, unit_tests)
    if select:
        # Only run tests whose every parent is selected (relationship tests to unbuilt models would fail).
        args += ["--select", select, "--indirect-selection", "cautious"]
    console.print(f"[bold]dbt build[/] against {data_dir} (artefacts in {artefact_dir(data_dir)})")
    results_path = artefact_dir(data_dir) / "target" / "run_results.json"
    results_path.unlink(missing_ok=True)  # a summary must never describe an earlier run
    try:
        _check_selected(invoke(data_dir, args, progress="dbt build", threads=threads), select)
    finally:
        findings = data_quality_findings(data_dir)
        print_data_quality_summary(data_dir, findings)
    return findings


# Partial builds: a data directory holding one dataset builds what that dataset serves.
_SOURCES = {"mimic-iv": ("mimiciv_hosp", "mimiciv_icu"), "eicu": ("eicu_crd",)}


def _eicu_or_stand_in(data_dir: Path) -> Path:
    """The eICU database, or (MIMIC-IV only) an empty stand-in under DIR/dbt for dbt to attach, so that
    no empty eicu.duckdb appears in the data directory."""
    eicu = database_path(data_dir, "eicu")
    if eicu.exists():
        return eicu
    stand_in = artefact_dir(data_dir) / "absent_eicu.duckdb"
    stand_in.parent.mkdir(parents=True, exist_ok=True)
    return stand_in


def present_datasets(data_dir: Path, datasets: Sequence[str]) -> list[str]:
    """The datasets among ``datasets`` whose database is in the data directory; when one is missing, say
    what the build skips. No database at all is an error saying how to create one."""
    present = [d for d in datasets if database_path(data_dir, d).exists()]
    if not present:
        check_sources(data_dir, datasets)  # raises with the hint for the first
    for dataset in datasets:
        if dataset not in present:
            from m4agent.registry import all_tasks

            tasks = sorted(t.name for t in all_tasks().values() if t.dataset == dataset)
            console.print(f"[yellow]skipping {dataset}[/]: {database_path(data_dir, dataset).name} is not in "
                          f"{data_dir}, so its models and the references of {len(tasks)} task(s) "
                          f"({', '.join(tasks)}) are not built; add it with `m4agent data synth --dataset "
                          f"{dataset}` or `m4agent data load --dataset {dataset} --src PATH`", soft_wrap=True)
    return present


def _check_selected(execution: object, select: str | None) -> None:
    """An error when ``--select`` chose nothing (dbt would succeed doing nothing)."""
    if select and not (getattr(execution, "results", None) or []):
        raise M4AgentError(f"--select {select!r} matches no model, seed or test; name a model and its "
                           "parents or children, e.g. --select +ref_sofa_24h (`dbt ls` lists the nodes)")
