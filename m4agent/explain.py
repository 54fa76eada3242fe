"""Which convention a run departed from: its output graded against every variant of its reference.

A variant is the reference with one convention read otherwise (``m4agent.conventions``). Each output
is graded, in one dbt call of the one-pass grader (``cells.cell_verdicts``), against its reference and
against every variant; so is the reference itself against every variant, which says on how many rows
a reading makes a difference at all. Counting is by rows, as M4Bench's match rate counts: a row
agrees when every scored cell matches; a missing, extra or duplicate row disagrees.

The decision (docs/explain.md): a reading explains a run when reading it so removes disagreeing rows,
and at least half as many as the reading changes (``differs``: the rows where the variant and the
reference disagree). An output that follows the reading gains about ``differs`` rows, one that follows
the reference loses about as many, and noise neither; half is the midpoint. Readings that change no
row on this data cannot be told from the documented one and are listed as such.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from m4agent import campaign_folder, discovery, layout
from m4agent.conventions import Variant, variants
from m4agent.dbt import duckdb_session
from m4agent.errors import M4AgentError
from m4agent.grading.loader import Run
from m4agent.harness import records
from m4agent.registry import TASKS_DIR, Task, all_tasks

EXPLAIN_FILE = "explain.json"  # a campaign's diagnoses by run key, beside campaign.json (view and report read it)
EXPLAINS_SHARE = 0.5  # of the rows a reading changes, the net share an output must follow it on
NO_EXPLANATION = "no convention explains this"


@dataclass(frozen=True)
class Fit:
    """An output against one table: rows that agree, and rows counted (the table's, plus extra and
    duplicate output rows)."""

    agreeing: int
    counted: int

    @property
    def disagreeing(self) -> int:
        return self.counted - self.agreeing

    def __str__(self) -> str:
        return f"{self.agreeing}/{self.counted} rows"


@dataclass(frozen=True)
class ReadingFit:
    """An output against one variant: its fit, the rows the variant changes, and the rows reading
    the convention so explains (the documented reading's disagreeing rows that it removes)."""

    variant: Variant
    fit: Fit
    differs: int
    explained: int

    @property
    def explains(self) -> bool:
        return self.explained > 0 and self.explained >= EXPLAINS_SHARE * self.differs


@dataclass(frozen=True)
class Diagnosis:
    """A run's output against its reference's documented reading and every variant, best first."""

    run_id: str
    task: str
    documented: Fit | None
    readings: tuple[ReadingFit, ...]
    error: str | None = None

    @property
    def explaining(self) -> tuple[ReadingFit, ...]:
        return tuple(r for r in self.readings if r.explains)

    @property
    def best(self) -> tuple[ReadingFit, ...]:
        """The explaining readings that explain the most rows, tied (on this data, readings can give the
        same rows: none of them is then more likely than another)."""
        if not self.explaining:
            return ()
        top = self.explaining[0]
        return tuple(r for r in self.explaining
                     if (r.explained, r.fit.disagreeing) == (top.explained, top.fit.disagreeing))

    @property
    def indistinguishable(self) -> tuple[ReadingFit, ...]:
        """Readings that change no row of the reference on this data."""
        return tuple(r for r in self.readings if r.differs == 0)

    def summary(self) -> str:
        """One sentence: the reading that best explains the mismatches, or why there is none."""
        if self.error or self.documented is None:
            return f"not diagnosed: {self.error or 'not graded'}"
        if self.documented.disagreeing == 0:
            return f"matches the documented reading ({self.documented})"
        if not self.explaining:
            return f"{NO_EXPLANATION} ({self.documented} agree with the documented reading)"
        best, *tied = self.best
        others = self.explaining[len(self.best):]
        left = best.fit.disagreeing
        alike = "".join(f" (or {other.variant.label}, which gives the same rows here)" for other in tied)
        also = "; ".join(f"{other.variant.label} explains {other.explained} rows" for other in others)
        return (f"matches the reference with {best.variant.label}{alike} on {best.fit}, against "
                f"{self.documented} for the documented reading ({best.variant.convention.documented.label}); "
                + (f"{left} rows stay unexplained" if left else "nothing stays unexplained")
                + (f"; also {also}" if also else ""))


def _variant_task(task: Task, variant: Variant) -> Task:
    """The task graded against a variant instead of the reference (same columns and tolerances)."""
    return dataclasses.replace(task, name=f"{task.name}__{variant.convention.name}__{variant.reading.name}",
                               reference_model=variant.model)


def _relation(task: Task) -> str:
    database = f"{duckdb_session.quote_identifier(duckdb_session.EICU_ALIAS)}." if task.dataset.startswith("eicu") \
        else ""
    return f'{database}"reference".{duckdb_session.quote_identifier(task.reference_model)}'


def _export_references(tasks: Sequence[Task], data_dir: Path, folder: Path) -> dict[str, Path]:
    """Each task's reference as M4Bench's ground-truth CSV, written into ``folder`` (ours, never a run's)."""
    from m4agent.reference_export import render_reference, write_csv

    exported = {}
    con = duckdb_session.connect(data_dir, read_only=True)
    try:
        built = {name for (name,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'reference'").fetchall()}
        for task in tasks:
            missing = [v.model for v in variants(task.reference_model) if v.model not in built]
            if missing:
                raise M4AgentError(f"variants of {task.reference_model} not built ({', '.join(missing)}); run "
                                   f"`m4agent reference variants {task.name} --data-dir {data_dir}` first")
            rows = render_reference(con, _relation(task), task.required_columns, task.key_columns)
            exported[task.name] = write_csv(rows, folder / f"{task.name}.csv")
    finally:
        con.close()
    return exported


def _fit(result: dict, cells: object) -> Fit | None:
    if result.get("errors") or cells is None:
        return None
    truth_rows, differing = cells.truth_rows, cells.differing_rows  # type: ignore[attr-defined]
    extra = int(result["extra_keys"]) + int(result["duplicate_rows"])
    return Fit(agreeing=truth_rows - differing, counted=truth_rows + extra)


def diagnose(runs: Sequence[Run], data_dir: Path) -> dict[str, Diagnosis]:
    """Each run's diagnosis, in one grading call for the batch; runs whose reference declares no
    conventions are diagnosed with no readings."""
    from m4agent.grading.cells import cell_verdicts

    tasks = {run.task.name: run.task for run in runs}
    batch: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="m4agent-explain-") as scratch:
        exported = _export_references([t for t in tasks.values() if variants(t.reference_model)], data_dir,
                                      Path(scratch))
        for name, path in exported.items():
            for variant in variants(tasks[name].reference_model):
                batch.append(Run(f"reference::{name}::{variant.model}", _variant_task(tasks[name], variant), path))
        for run in runs:
            batch.append(run)
            for variant in variants(run.task.reference_model):
                batch.append(Run(f"{run.run_id}::{variant.model}", _variant_task(run.task, variant), run.output_path))
        results, cells = cell_verdicts(batch, data_dir, limit=1)
    fits = {run_id: _fit(result, cells.get(run_id)) for run_id, result in results.items()}
    diagnoses = {}
    for run in runs:
        documented = fits.get(run.run_id)
        error = "; ".join(results.get(run.run_id, {}).get("errors") or []) or None
        readings = []
        for variant in variants(run.task.reference_model):
            fit = fits.get(f"{run.run_id}::{variant.model}")
            changed = fits.get(f"reference::{run.task.name}::{variant.model}")
            if documented is None or fit is None or changed is None:
                continue
            readings.append(ReadingFit(variant, fit, differs=changed.disagreeing,
                                       explained=documented.disagreeing - fit.disagreeing))
        readings.sort(key=lambda r: (-r.explained, r.fit.disagreeing, r.variant.model))
        diagnoses[run.run_id] = Diagnosis(run.run_id, run.task.name, documented, tuple(readings), error)
    return diagnoses


@dataclass(frozen=True)
class Found:
    """The runs under a path that can be diagnosed, each with the data directory holding its
    reference (None: the caller's default), and those that cannot, with the reason (run id, reason)."""

    runs: tuple[tuple[Run, Path | None], ...]
    skipped: tuple[tuple[str, str], ...]
    conditions: dict[str, str] = dataclasses.field(default_factory=dict)  # a campaign run's id -> its condition
    homes: dict[str, Path] = dataclasses.field(default_factory=dict)  # a campaign run's id -> its campaign folder
    agents: dict[str, str] = dataclasses.field(default_factory=dict)  # a campaign run's id -> agent/model


def _campaign_runs(found: discovery.CampaignRuns, data_dir: Path | None) -> Found:
    """A campaign's planned runs: each final attempt's output.csv, as the campaign graded it."""
    meta = records.read_json(found.folder / campaign_folder.CAMPAIGN_FILE)
    tasks = all_tasks(Path(meta.get("tasks_dir") or TASKS_DIR))
    root = data_dir or (Path(meta["data_dir"]) if meta.get("data_dir") else None)
    runs, skipped = [], []
    conditions = {spec.key: spec.condition for spec in found.specs}
    for spec in found.specs:
        folder = found.run_folder(spec)
        final = records.final_attempt(records.attempts(folder))
        if spec.task not in tasks:
            skipped.append((spec.key, f"unknown task {spec.task}"))
        elif final is None or not (final.outcome.graded and final.has_output):
            skipped.append((spec.key, "no graded output"))
        else:
            output = folder / records.ATTEMPTS_DIR / f"{final.number:04d}" / layout.OUTPUT_NAME
            runs.append((Run(spec.key, tasks[spec.task], output), root))
    return Found(tuple(runs), tuple(skipped), conditions, {spec.key: found.folder for spec in found.specs},
                 {spec.key: f"{spec.agent}/{spec.model}" for spec in found.specs})


def runs_under(path: Path, data_dir: Path | None) -> Found:
    """The runs at or below ``path`` by the one discovery rule (``harness.discovery``): a campaign's
    planned runs (their data directory ``data_dir``, else campaign.json's), else the run folders of a
    plain results tree (run.json naming the task, output.csv; their data directory ``data_dir``)."""
    from m4agent.grading.results_tree import discover_runs
    from m4agent.run_folder import OUTPUT_NAME, RUN_FILE

    where = discovery.find(path, (RUN_FILE, OUTPUT_NAME))
    if where.campaigns:
        parts = [_campaign_runs(found, data_dir) for found in where.campaigns]
        plain = tuple((str(folder), "outside the campaign's plan") for folder in where.plain)
        return Found(tuple(r for p in parts for r in p.runs), tuple(s for p in parts for s in p.skipped) + plain,
                     {key: condition for p in parts for key, condition in p.conditions.items()},
                     {key: home for p in parts for key, home in p.homes.items()},
                     {key: agent for p in parts for key, agent in p.agents.items()})
    runs, skipped = [], []
    for batch_run in discover_runs(path, all_tasks()):
        if batch_run.run is None:
            skipped.append((str(batch_run.folder), batch_run.problem or "not a run"))
        else:
            runs.append((batch_run.run, data_dir))
    return Found(tuple(runs), tuple(skipped))


def as_record(diagnosis: Diagnosis) -> dict:
    """A diagnosis as JSON: the verdict, the documented fit and every reading's."""
    def fit(value: Fit | None) -> dict | None:
        return None if value is None else {"agreeing_rows": value.agreeing, "counted_rows": value.counted}

    return {
        "run_id": diagnosis.run_id, "task": diagnosis.task, "summary": diagnosis.summary(),
        "explained_by": [r.variant.model for r in diagnosis.explaining],
        "best": [r.variant.model for r in diagnosis.best],
        "indistinguishable": [r.variant.model for r in diagnosis.indistinguishable],
        "documented": fit(diagnosis.documented), "error": diagnosis.error,
        "readings": [{"variant": r.variant.model, "convention": r.variant.convention.name,
                      "reading": r.variant.reading.name, "label": r.variant.reading.label, "fit": fit(r.fit),
                      "rows_changed": r.differs, "rows_explained": r.explained, "explains": r.explains}
                     for r in diagnosis.readings],
    }


def departures(diagnoses: Sequence[Diagnosis]) -> list[tuple[str, int, int]]:
    """Across runs: per reading that explains some run, (variant model, runs it explains best (tied
    readings each counted), runs it explains at all), most frequent first; then NO_EXPLANATION's count
    of runs with mismatches."""
    best: dict[str, int] = {}
    anywhere: dict[str, int] = {}
    unexplained = 0
    for diagnosis in diagnoses:
        if diagnosis.documented is None or diagnosis.documented.disagreeing == 0:
            continue
        if not diagnosis.explaining:
            unexplained += 1
        for reading in diagnosis.explaining:
            anywhere[reading.variant.model] = anywhere.get(reading.variant.model, 0) + 1
        for reading in diagnosis.best:
            best[reading.variant.model] = best.get(reading.variant.model, 0) + 1
    rows = sorted(((model, best.get(model, 0), count) for model, count in anywhere.items()),
                  key=lambda row: (-row[1], -row[2], row[0]))
    return [*rows, (NO_EXPLANATION, unexplained, unexplained)] if unexplained else rows


def save(found: Found, results: dict[str, Diagnosis]) -> list[Path]:
    """Write each campaign's diagnoses to its ``explain.json`` (run key -> ``as_record`` with the run's
    agent and condition), for ``m4agent view`` and ``m4agent report``; the files written."""
    by_home: dict[Path, dict[str, dict]] = {}
    for run_id, home in found.homes.items():
        if run_id in results:
            by_home.setdefault(home, {})[run_id] = {**as_record(results[run_id]), "agent": found.agents.get(run_id),
                                                    "condition": found.conditions.get(run_id)}
    for home, runs in by_home.items():
        records.write_json_atomic(home / EXPLAIN_FILE, {"runs": runs})
    return [home / EXPLAIN_FILE for home in sorted(by_home)]


def saved(campaign_dir: Path) -> dict[str, dict]:
    """A campaign's saved diagnoses by run key; empty when ``m4agent explain`` has not been run on it."""
    path = campaign_dir / EXPLAIN_FILE
    if not path.is_file():
        return {}
    runs = records.read_json(path).get("runs")
    return runs if isinstance(runs, dict) else {}


def departures_by_condition(runs: Sequence[dict]) -> list[dict]:
    """Across saved diagnoses: per agent, condition and reading, the runs it explains best and at all,
    beside the runs of that agent and condition with mismatches (and those no reading explains)."""
    cells: dict[tuple[str, str], list[dict]] = {}
    for record in runs:
        cells.setdefault((str(record.get("agent")), str(record.get("condition"))), []).append(record)
    rows = []
    for (agent, condition), group in sorted(cells.items()):
        missed = [r for r in group if r.get("documented") and
                  r["documented"]["agreeing_rows"] < r["documented"]["counted_rows"]]
        labels = {reading["variant"]: reading["label"] for r in missed for reading in r.get("readings", [])}
        best: dict[str, int] = {}
        anywhere: dict[str, int] = {}
        for record in missed:
            for model in record.get("best", []):
                best[model] = best.get(model, 0) + 1
            for model in record.get("explained_by", []):
                anywhere[model] = anywhere.get(model, 0) + 1
        for model in sorted(anywhere, key=lambda m: (-best.get(m, 0), -anywhere[m], m)):
            rows.append({"agent": agent, "condition": condition, "reading": model, "label": labels.get(model, ""),
                         "runs_best": best.get(model, 0), "runs_explained": anywhere[model],
                         "runs_with_mismatches": len(missed), "runs": len(group)})
        unexplained = sum(1 for r in missed if not r.get("explained_by"))
        if unexplained or not missed:
            rows.append({"agent": agent, "condition": condition,
                         "reading": NO_EXPLANATION if missed else "no mismatches", "label": "",
                         "runs_best": unexplained, "runs_explained": unexplained,
                         "runs_with_mismatches": len(missed), "runs": len(group)})
    return rows
