"""Perturbed copies of an output, the ways agents get it wrong (test and benchmark support).

``perturbations(task, rows, rng)`` returns 20 makers, each giving the text of a
CSV derived from ``rows`` (a header and data rows, e.g. an exported reference):
the copy itself, shuffled with CRLF, rows dropped, duplicated or fabricated,
keys written as floats, a value column blanked, moved beyond or within its
tolerance, lower-cased, a column dropped, a key column dropped, header only,
empty, ISO 'T' timestamps, 'None' for empty cells, an extra column, a BOM,
semicolons.
"""

from __future__ import annotations

import csv
import gzip
import io
import random
from collections.abc import Callable
from pathlib import Path

from m4agent.registry import Task, all_tasks

Rows = list[list[str]]


def read_rows(path: Path) -> Rows:
    """A CSV's header and rows, as text (a ``.gz`` path is read through gzip)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", newline="") as handle:
        return list(csv.reader(handle))


def _write(rows: Rows, delimiter: str = ",", line_end: str = "\n") -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=line_end).writerows(rows)
    return out.getvalue()


def _bump(value: str, by: float) -> str:
    try:
        return repr(float(value) + by)
    except ValueError:
        return value


def perturbations(task: Task, rows: Rows, rng: random.Random) -> list[Callable[[], str | None]]:
    header, body = rows[0], rows[1:]
    scored = [c for c in task.scored_columns if c in header]
    first = header.index(scored[0]) if scored else 0
    tol = task.tolerance.get(header[first], 0) or 1.0

    def edit(fn: Callable[[int, list[str]], list[str]]) -> str:
        return _write([header, *[fn(i, list(r)) for i, r in enumerate(body)]])

    def set_col(row: list[str], position: int, value: str) -> list[str]:
        row[position] = value
        return row

    key_positions = [header.index(k) for k in task.key_columns]
    return [
        lambda: _write(rows),
        lambda: _write([header, *rng.sample(body, len(body))], line_end="\r\n"),
        lambda: _write([header, *[r for i, r in enumerate(body) if i % 10]]),
        lambda: _write([header, *body[: len(body) // 2]]),
        lambda: _write([header, *body, *[set_col(list(r), first, _bump(r[first], 3 * tol)) for r in body[::10]]]),
        lambda: _write([header, *body, *[set_col(list(r), key_positions[0], str(90_000_000 + i))
                                         for i, r in enumerate(body[::10])]]),
        lambda: edit(lambda i, r: [v + ".0" if j in key_positions and v.isdigit() else v for j, v in enumerate(r)]),
        lambda: edit(lambda i, r: set_col(r, first, "")),
        lambda: edit(lambda i, r: set_col(r, first, _bump(r[first], 2 * tol)) if i % 5 == 0 else r),
        lambda: edit(lambda i, r: set_col(r, first, _bump(r[first], tol / 2))),
        lambda: edit(lambda i, r: [v.lower() for v in r]),
        lambda: _write([[c for j, c in enumerate(r) if j != first] for r in rows]),
        lambda: _write([[c for j, c in enumerate(r) if j != key_positions[0]] for r in rows]),
        lambda: _write([header]),
        lambda: "",
        lambda: edit(lambda i, r: [v.replace(" ", "T") if len(v) == 19 and v[4] == "-" else v for v in r]),
        lambda: edit(lambda i, r: [v or "None" for v in r]),
        lambda: _write([[*header, "note"], *[[*r, f"n{i}"] for i, r in enumerate(body)]]),
        lambda: "\ufeff" + _write(rows),
        lambda: _write(rows, delimiter=";"),
    ]


def perturbed_runs(data_dir: Path, folder: Path, seed: int, every: int) -> list:
    """Every ``every``-th perturbed copy of every task's exported reference (from ``data_dir``),
    written under ``folder/runs`` (a maker giving no text leaves no file), as grading runs."""
    from m4agent.grading.loader import Run
    from m4agent.reference_export import export

    rng = random.Random(seed)
    runs = []
    for name, task in all_tasks().items():
        makers = perturbations(task, read_rows(export(name, data_dir, folder / f"{name}.csv")), rng)
        for index in range(0, len(makers), every):
            text = makers[index]()
            output = folder / "runs" / f"{name}.{index}.csv"
            output.parent.mkdir(parents=True, exist_ok=True)
            if text is not None:
                output.write_text(text, newline="")
            runs.append(Run(output.stem, task, output))
    return runs
