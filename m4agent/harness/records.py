"""Run records: what defines a run, its key, its attempts and their outcomes (the ledger).

A campaign folder holds one folder per planned run, ``runs/<task>/<key>/`` (what defines a run and
its key: ``campaign_folder``).

A run folder holds ``run.json`` (the spec and key, written once), ``instruction.md``,
and ``attempts/NNNN/``, one folder per attempt, appended and never removed (the agent's
``workspace/`` inside it is what the agent wrote: ``discovery`` never reads a record there):

- ``started.json`` is written when the attempt starts;
- ``attempt.json`` when it ends, with exactly one ``Outcome``;
- an attempt with ``started.json`` and no ``attempt.json`` was interrupted (the
  harness died); the next ``campaign run`` closes it as ``infra_error`` with reason
  ``interrupted`` before it starts another.

The run's ``result.json`` is written once its final attempt is known and graded. So
resume is a pure function of these files: ``state(run_folder)`` says what to do next.
Every file is written atomically (``run_folder``: temporary name, fsync, then rename), so a kill at
any moment leaves either the old state or the new one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from m4agent.campaign_folder import RunSpec
from m4agent.errors import M4AgentError
from m4agent.run_folder import (
    ATTEMPT_FILE,
    ATTEMPTS_DIR,
    RESULT_FILE,
    RUN_FILE,
    STARTED_FILE,
    read_json,
    remove_leftovers,
    write_json_atomic,
)

SCHEMA_VERSION = 1
MAX_VIOLATIONS_PER_RULE = 20  # kept whole in attempt.json; the rest of a rule is only counted


class Outcome(StrEnum):
    """How an attempt ended: exactly one of these."""

    SCORED = "scored"  # the agent finished and left an output; graded
    TIMEOUT = "timeout"  # the agent phase hit its limit; the container was killed
    AGENT_ERROR = "agent_error"  # the agent exited non-zero
    NO_OUTPUT = "no_output"  # the agent finished without writing output.csv
    POLICY_VIOLATION = "policy_violation"  # egress outside the allowlist, a canary or the contamination lint
    QUOTA = "quota"  # the provider refused for quota or rate; retried later, never a model's zero
    INVALID_KEY = "invalid_key"  # the provider refused the key or the model; the queue stops until it is fixed
    INFRA_ERROR = "infra_error"  # the harness or Docker failed; retried, never a model's zero

    @property
    def retryable(self) -> bool:
        """Quota stops and infrastructure failures say nothing of the model: the run is tried again."""
        return self in (Outcome.QUOTA, Outcome.INVALID_KEY, Outcome.INFRA_ERROR)

    @property
    def stops_queue(self) -> bool:
        """The provider's answers that no retry can change today: its queue stops for this start, and the
        run's retries are not used up."""
        return self in (Outcome.QUOTA, Outcome.INVALID_KEY)

    @property
    def graded(self) -> bool:
        """Outcomes whose output (when there is one) is graded; the others score 0 without a look."""
        return self in (Outcome.SCORED, Outcome.TIMEOUT, Outcome.AGENT_ERROR)


INTERRUPTED = "interrupted"


@dataclass
class AttemptRecord:
    """One attempt's end: outcome, reason and the facts a report needs."""

    number: int
    outcome: Outcome
    reason: str = ""
    exit_code: int | None = None
    started_at: str = ""
    ended_at: str = ""
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase: setup, agent, collect
    has_output: bool = False
    violations: list[dict[str, Any]] = field(default_factory=list)  # the first of each rule (add_violations)
    violation_counts: dict[str, int] = field(default_factory=dict)  # every violation, kept or not, per rule
    container: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def add_violations(self, found: Iterable[dict[str, Any]]) -> None:
        """Count each violation under its ``rule`` and keep the first ``MAX_VIOLATIONS_PER_RULE`` of each.

        The agent decides how many violations it causes (a flood of refused requests,
        a workspace of planted secrets), so the record keeps a bounded sample; every
        rule keeps at least its first, so the outcome's reason still names them all.
        """
        for violation in found:
            rule = str(violation.get("rule", ""))
            seen = self.violation_counts.get(rule, 0)
            if seen < MAX_VIOLATIONS_PER_RULE:
                self.violations.append(violation)
            self.violation_counts[rule] = seen + 1

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["outcome"] = self.outcome.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AttemptRecord:
        data = dict(data)
        data["outcome"] = Outcome(data["outcome"])
        return cls(**data)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def write_run(folder: Path, spec: RunSpec, extra: dict[str, Any] | None = None) -> None:
    """``run.json``: written once when the run is first planned; a different spec under one key is an error."""
    path = folder / RUN_FILE
    payload = {"schema_version": SCHEMA_VERSION, "key": spec.key, **asdict(spec), **(extra or {})}
    if path.exists():
        existing = read_json(path)
        if existing.get("key") != spec.key:
            raise M4AgentError(f"{path} holds run {existing.get('key')}, not {spec.key}")
        return
    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, payload)


def read_spec(folder: Path) -> RunSpec:
    data = read_json(folder / RUN_FILE)
    names = RunSpec.__dataclass_fields__
    return RunSpec(**{name: data[name] for name in names})


def attempt_folders(folder: Path) -> list[Path]:
    """The run's attempt folders in order (``attempts/0001``, ...)."""
    root = folder / ATTEMPTS_DIR
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name.isdigit())


def new_attempt(folder: Path) -> Path:
    """Create the next attempt folder; ``mkdir`` fails rather than reuse one, so none is duplicated."""
    existing = attempt_folders(folder)
    number = int(existing[-1].name) + 1 if existing else 1
    path = folder / ATTEMPTS_DIR / f"{number:04d}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir()
    write_json_atomic(path / STARTED_FILE, {"number": number, "started_at": now(), "pid": os.getpid()})
    return path


def attempts(folder: Path) -> list[AttemptRecord]:
    """Every ended attempt of a run, in order."""
    records = []
    for path in attempt_folders(folder):
        if (path / ATTEMPT_FILE).exists():
            records.append(AttemptRecord.from_json(read_json(path / ATTEMPT_FILE)))
    return records


def close_interrupted(folder: Path) -> int:
    """Close every attempt a dead harness left open as ``infra_error``/``interrupted``; how many."""
    closed = 0
    for path in attempt_folders(folder):
        remove_leftovers(path)
        if (path / ATTEMPT_FILE).exists():
            continue
        started = read_json(path / STARTED_FILE) if (path / STARTED_FILE).exists() else {}
        record = AttemptRecord(number=int(path.name), outcome=Outcome.INFRA_ERROR, reason=INTERRUPTED,
                               started_at=started.get("started_at", ""), ended_at=now())
        write_json_atomic(path / ATTEMPT_FILE, record.to_json())
        closed += 1
    remove_leftovers(folder)
    return closed


def finish_attempt(path: Path, record: AttemptRecord) -> None:
    write_json_atomic(path / ATTEMPT_FILE, record.to_json())


class RunState(StrEnum):
    """What a run needs next, read from its files alone."""

    PENDING = "pending"  # no final attempt yet (never tried, or only retryable ends within the budget)
    GRADING = "grading"  # its final attempt ended; result.json not yet written
    DONE = "done"  # result.json written
    EXHAUSTED = "exhausted"  # retryable ends only, and the retry budget is spent


def counted_retries(records: list[AttemptRecord]) -> int:
    """Retryable attempts that count against the budget: an interrupted harness is not the run's fault,
    and a quota or key refusal is the provider's (the campaign stops that provider's queue instead)."""
    return sum(1 for r in records if r.outcome.retryable and r.reason != INTERRUPTED
               and not r.outcome.stops_queue)


def final_attempt(records: list[AttemptRecord]) -> AttemptRecord | None:
    """The attempt whose outcome is final (not retryable); at most one exists, and it is the last."""
    finals = [r for r in records if not r.outcome.retryable]
    return finals[-1] if finals else None


def state(folder: Path, max_retries: int) -> RunState:
    if (folder / RESULT_FILE).exists():
        return RunState.DONE
    records = attempts(folder)
    if final_attempt(records) is not None:
        return RunState.GRADING
    if counted_retries(records) > max_retries:
        return RunState.EXHAUSTED
    return RunState.PENDING
