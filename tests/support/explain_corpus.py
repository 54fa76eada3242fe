"""Outputs with a known cause, for checking `m4agent explain` (tests/test_explain.py, benchmarks/explain_validation.py).

- planted: a variant's own table, rendered as an agent's CSV (the reading is all it departs by);
- planted with noise: the same, with a share of its rows' values perturbed;
- noise: the reference with a share of its rows' values perturbed (no convention departed from).

A perturbation moves one scored value of a row away from every value a reading could give it: a number
by a random amount (an integer by 5 to 9, a decimal by 30 to 60 %), an empty cell to 7. Rows are chosen
by a seeded generator, so a corpus is the same on every run.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4agent.conventions import variants
from m4agent.grading.loader import Run
from m4agent.reference_export import render_reference, write_csv
from m4agent.registry import Task


@dataclass(frozen=True)
class Case:
    """An output and what explain must say of it: the planted variant's model, or None for noise."""

    run: Run
    planted: str | None
    kind: str  # planted, planted+noise, noise
    evidence: int | None = None  # planted: rows the reading changes (as text) that no perturbation touched


def _perturbed(value: str, rng: random.Random) -> str:
    if value == "":
        return "7"
    try:
        number = float(value)
    except ValueError:
        return value + "x"
    sign = rng.choice((-1, 1))
    if number.is_integer() and "." not in value:
        return str(int(number) + sign * rng.randint(5, 9))
    return f"{number * (1 + sign * rng.uniform(0.3, 0.6)):.4f}"


def perturb(rows: list[list[str]], task: Task, share: float, rng: random.Random,
            ) -> tuple[list[list[str]], set[tuple[str, ...]]]:
    """``rows`` (a header, then data) with one scored value of ``share`` of the rows perturbed, and the
    keys of the perturbed rows."""
    header, data = rows[0], [list(row) for row in rows[1:]]
    scored = [header.index(column) for column in task.scored_columns if column in header]
    touched = set()
    for index in rng.sample(range(len(data)), k=round(share * len(data))):
        column = rng.choice(scored)
        data[index][column] = _perturbed(data[index][column], rng)
        touched.add(_key(header, data[index], task))
    return [header, *data], touched


def _key(header: list[str], row: list[str], task: Task) -> tuple[str, ...]:
    return tuple(row[header.index(column)] for column in task.key_columns)


def _changed_keys(rows: list[list[str]], reference: list[list[str]], task: Task) -> set[tuple[str, ...]]:
    """Keys of the rows where ``rows`` and ``reference`` differ as text (a row of either alone included)."""
    def keyed(table: list[list[str]]) -> dict[tuple[str, ...], list[str]]:
        return {_key(table[0], row, task): row for row in table[1:]}

    mine, theirs = keyed(rows), keyed(reference)
    return {key for key in mine.keys() | theirs.keys() if mine.get(key) != theirs.get(key)}


def _rendered(con: duckdb.DuckDBPyConnection, task: Task, model: str) -> list[list[str]]:
    return render_reference(con, f'"reference"."{model}"', task.required_columns, task.key_columns)


def corpus(con: duckdb.DuckDBPyConnection, tasks: list[Task], folder: Path,
           noise_shares: tuple[float, ...] = (0.05, 0.2), planted_noise: tuple[float, ...] = (0.05,),
           seed: int = 44, only: tuple[str, ...] | None = None) -> list[Case]:
    """For each task: every variant planted, alone and once with each share of ``planted_noise``, and the
    reference once with each of ``noise_shares`` (a share may repeat: each draw is new); ``only`` names
    the variant models to plant. CSVs are written into ``folder``."""
    rng = random.Random(seed)
    cases = []

    def add(name: str, task: Task, rows: list[list[str]], planted: str | None, kind: str,
            evidence: int | None = None) -> None:
        cases.append(Case(Run(name, task, write_csv(rows, folder / f"{name}.csv")), planted, kind, evidence))

    for task in tasks:
        reference = _rendered(con, task, task.reference_model)
        for variant in variants(task.reference_model):
            if only is not None and variant.model not in only:
                continue
            rows = _rendered(con, task, variant.model)
            changed = _changed_keys(rows, reference, task)
            add(f"planted-{variant.model}", task, rows, variant.model, "planted", len(changed))
            for number, share in enumerate(planted_noise):
                noisy, touched = perturb(rows, task, share, rng)
                add(f"planted_noise{number}-{variant.model}", task, noisy, variant.model, "planted+noise",
                    len(changed - touched))
        for number, share in enumerate(noise_shares):
            add(f"noise{number}-{task.name}", task, perturb(reference, task, share, rng)[0], None, "noise")
    return cases
