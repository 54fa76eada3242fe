"""Which convention a run departed from: its output graded against every variant of its reference.

A variant is the reference with one convention read otherwise (``m4agent.conventions``). Each output
is graded, in one dbt call of the one-pass grader (``grade.cell_verdicts``), against its reference and
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

from m4agent import duckdb_session
from m4agent.conventions import Variant, variants
from m4agent.errors import M4AgentError
from m4agent.grading.loader import Run
from m4agent.registry import Task

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
        best = self.explaining[0]
        left = best.fit.disagreeing
        return (f"matches the reference with {best.variant.label} on {best.fit}, against {self.documented} "
                f"for the documented {best.variant.convention.documented.label}; "
                + (f"{left} rows stay unexplained" if left else "nothing stays unexplained"))


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
    from m4agent.grading.grade import cell_verdicts

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
