"""Validity of a set of runs: completeness against the plan, counts per outcome, integrity counts.

Completeness needs a plan: an m4agent campaign's ``plan.json`` names every run it expects, so a
report lists the runs expected, observed (a valid final outcome), missing (planned, no valid final
outcome: never run, still pending, or out of retries) and unexpected (run folders no plan names).
M4Bench's published tables carry no plan; their completeness is the table itself.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from m4agent.reports.run_records import INFRA_OUTCOMES, Loaded, RunRecord


def _key_text(key: tuple[str, str, str, str, str, int]) -> str:
    agent, task, condition, schema, model, trial = key
    return f"{task} {condition} {schema} {agent}/{model} t{trial}"


def completeness(loaded: Loaded) -> dict[str, Any]:
    valid = {run.key for run in loaded.runs if run.valid}
    if loaded.planned is None:
        return {"plan": False, "expected": None, "observed": len(valid), "missing": [], "unexpected": []}
    expected = set(loaded.planned)
    missing = sorted(expected - valid)
    unexpected = sorted(valid - expected)
    return {"plan": True, "expected": len(expected), "observed": len(valid & expected),
            "missing": [_key_text(k) for k in missing],
            "unexpected": [_key_text(k) for k in unexpected] + list(loaded.unexpected)}


def outcomes(runs: list[RunRecord]) -> dict[str, Any]:
    """Final outcomes per run, and every attempt's outcome (retried quota and infrastructure failures
    included)."""
    final = Counter(run.outcome for run in runs)
    attempts = Counter(outcome for run in runs for outcome in run.attempt_outcomes)
    return {"final": dict(sorted(final.items())), "attempts": dict(sorted(attempts.items())),
            "runs": len(runs), "valid_runs": sum(run.valid for run in runs),
            "attempts_total": sum(len(run.attempt_outcomes) for run in runs),
            "infrastructure_attempts": sum(attempts[o] for o in INFRA_OUTCOMES)}


def _count(runs: list[RunRecord], test: Any) -> int:
    return sum(1 for run in runs if test(run))


def integrity(runs: list[RunRecord]) -> dict[str, Any]:
    """The audit counts the paper's integrity tables list (where the source records them)."""
    cells = {(r.agent, r.task, r.condition, r.schema, r.model) for r in runs}
    elapsed = [r.elapsed_seconds for r in runs if r.elapsed_seconds is not None]
    return {
        "runs": len(runs),
        "cells": len(cells),
        "publishable_failures": _count(runs, lambda r: r.publishable is False),
        "isolation_failures": _count(runs, lambda r: r.isolated is False),
        "filesystem_canary_failures": _count(runs, lambda r: r.filesystem_canary is False),
        "contamination_lint_failures": _count(runs, lambda r: r.contamination_lint is False),
        "policy_violations": _count(runs, lambda r: r.outcome == "policy_violation"),
        "flagged_for_review": _count(runs, lambda r: bool(r.flags)),
        "over_run_budget": _count(runs, lambda r: r.budget_exceeded),
        "nonzero_agent_exits": _count(runs, lambda r: r.agent_returncode not in (0, None)),
        "missing_rewards": _count(runs, lambda r: r.reward is None),
        "strict_passes": _count(runs, lambda r: r.strict_pass),
        "diagnostic_failures": _count(runs, lambda r: bool(r.diagnostics_failed)),
        "agent_hours": sum(elapsed) / 3600 if elapsed else None,
    }
