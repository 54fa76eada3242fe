"""Quiet, informative output for long commands.

dbt's own log goes to its log file (``DIR/dbt/logs/dbt.log``); the terminal shows one progress bar
(nodes done of total, passes, warnings, failures, elapsed time and ETA) fed by dbt's events, and the
command closes with a summary and the next steps. ``--verbose`` (:func:`set_verbose`) restores dbt's
raw log on the terminal instead of the bar.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

stderr = Console(stderr=True)
_verbose = False
_last: BuildTally | None = None


def set_verbose(value: bool) -> None:
    global _verbose
    _verbose = value


def verbose() -> bool:
    """True when the user asked for dbt's raw log (--verbose)."""
    return _verbose


_PASSED = {"success", "pass"}
_FAILED = {"fail", "error", "runtime error"}


@dataclass
class BuildTally:
    """What a dbt run did, counted from its events: node statuses by resource type, and warnings."""

    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)
    warnings: Counter[str] = field(default_factory=Counter)

    def count(self, resource_types: tuple[str, ...], statuses: set[str]) -> int:
        return sum(n for (kind, status), n in self.statuses.items()
                   if kind in resource_types and status in statuses)

    def line(self) -> str:
        """'41 models, 8 seeds built; 154 tests passed, 0 failed; 1 warning'."""
        built = [f"{self.count((kind,), _PASSED)} {label}" for kind, label in
                 (("model", "models"), ("seed", "seeds"))]
        tests = ("test", "unit_test")
        failed = self.count(("model", "seed", *tests), _FAILED)
        warned = self.count(tests, {"warn"})
        return (f"{', '.join(built)} built; {self.count(tests, _PASSED)} tests passed, {warned} warned, "
                f"{failed} failed or errored; {self.count(('model', 'seed', *tests), {'skipped'})} skipped")


@contextmanager
def dbt_progress(label: str) -> Iterator[tuple[Callable[[Any], None], BuildTally]]:
    """A dbt event callback driving a progress bar, and the tally it fills (bar hidden in --verbose)."""
    tally = BuildTally()
    lock = threading.Lock()
    columns = (SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=stderr, disable=_verbose, transient=True) as bar:
        task = bar.add_task(label, total=None, counts="parsing the project")

        def on_event(event: Any) -> None:
            name = event.info.name
            data = event.data
            with lock:
                if event.info.level == "warn":
                    tally.warnings[name] += 1
                if name == "ConcurrencyLine":
                    bar.update(task, total=data.node_count, counts="")
                elif name == "NodeFinished":
                    info = data.node_info
                    tally.statuses[(info.resource_type, info.node_status)] += 1
                    total = bar.tasks[0].total or 0
                    done = sum(tally.statuses.values())
                    failed = tally.count(("model", "seed", "test", "unit_test"), _FAILED)
                    bar.update(task, completed=done, total=max(total, done),
                               counts=f"{failed} failed" if failed else "")
        yield on_event, tally
    global _last
    _last = tally


def last_tally() -> BuildTally | None:
    """What the last dbt run shown with a progress bar did (None before any)."""
    return _last


@contextmanager
def status(message: str) -> Iterator[None]:
    """A spinner with ``message`` while a step without countable parts runs (hidden in --verbose)."""
    if _verbose:
        stderr.print(message)
        yield
        return
    with stderr.status(message):
        yield
