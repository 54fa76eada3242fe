"""Run records: keys from content, append-only attempts, interrupted attempts, resume state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from m4agent.campaign_folder import RunSpec
from m4agent.errors import M4AgentError
from m4agent.harness import records
from m4agent.harness.records import AttemptRecord, Outcome, RunState
from m4agent.run_folder import RESULT_FILE, STARTED_FILE, write_json_atomic

SPEC = RunSpec(task="mimic-sofa-24h", task_digest="abc", condition="no-skill", schema="native",
               agent="oracle", agent_version="1", model="default", trial=1)


def test_run_key_depends_on_every_defining_field() -> None:
    changed = [replace(SPEC, **{name: (value + 1 if isinstance(value, int) else value + "x")})
               for name, value in vars(SPEC).items()]
    assert len({SPEC.key, *(spec.key for spec in changed)}) == len(changed) + 1


def test_run_key_is_the_same_in_another_process() -> None:
    code = ("import json, sys; from m4agent.harness.records import RunSpec; "
            "print(RunSpec(**json.loads(sys.argv[1])).key)")
    other = subprocess.run([sys.executable, "-c", code, json.dumps(vars(SPEC))], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": "random"})
    assert other.stdout.strip() == SPEC.key


def test_attempts_are_appended_in_order(tmp_path: Path) -> None:
    first = records.new_attempt(tmp_path)
    second = records.new_attempt(tmp_path)
    assert [p.name for p in records.attempt_folders(tmp_path)] == ["0001", "0002"]
    assert first != second and (first / STARTED_FILE).exists()


def test_an_open_attempt_is_closed_as_interrupted_infra_error(tmp_path: Path) -> None:
    records.new_attempt(tmp_path)
    assert records.close_interrupted(tmp_path) == 1
    [record] = records.attempts(tmp_path)
    assert record.outcome is Outcome.INFRA_ERROR and record.reason == records.INTERRUPTED
    assert records.close_interrupted(tmp_path) == 0


def test_interrupted_attempts_do_not_spend_the_retry_budget(tmp_path: Path) -> None:
    for _ in range(5):
        records.new_attempt(tmp_path)
        records.close_interrupted(tmp_path)
    assert records.state(tmp_path, max_retries=1) is RunState.PENDING


def test_infra_errors_past_the_budget_exhaust_the_run(tmp_path: Path) -> None:
    for _ in range(3):
        path = records.new_attempt(tmp_path)
        records.finish_attempt(path, AttemptRecord(number=int(path.name), outcome=Outcome.INFRA_ERROR,
                                                   reason="docker failed"))
    assert records.state(tmp_path, max_retries=2) is RunState.EXHAUSTED
    assert records.state(tmp_path, max_retries=3) is RunState.PENDING


def test_a_final_outcome_moves_the_run_to_grading_then_done(tmp_path: Path) -> None:
    path = records.new_attempt(tmp_path)
    records.finish_attempt(path, AttemptRecord(number=1, outcome=Outcome.NO_OUTPUT))
    assert records.state(tmp_path, max_retries=0) is RunState.GRADING
    write_json_atomic(tmp_path / RESULT_FILE, {"reward": 0.0})
    assert records.state(tmp_path, max_retries=0) is RunState.DONE


def test_run_json_refuses_a_different_run_under_the_same_folder(tmp_path: Path) -> None:
    records.write_run(tmp_path, SPEC)
    records.write_run(tmp_path, SPEC)
    other = replace(SPEC, trial=2)
    with pytest.raises(M4AgentError, match="holds run"):
        records.write_run(tmp_path, other)
    assert records.read_spec(tmp_path) == SPEC


def test_stale_temporaries_of_an_interrupted_write_are_removed(tmp_path: Path) -> None:
    (tmp_path / ".result.json.x1y2.tmp").write_text("{")
    records.new_attempt(tmp_path)
    records.close_interrupted(tmp_path)
    assert not list(tmp_path.glob(".*.tmp"))


def test_only_the_providers_and_the_harnesss_failures_are_retryable() -> None:
    assert {o for o in Outcome if o.retryable} == {Outcome.QUOTA, Outcome.INVALID_KEY, Outcome.INFRA_ERROR}


def test_a_refused_key_stops_the_queue_and_uses_up_no_retry() -> None:
    refused = records.AttemptRecord(number=1, outcome=Outcome.INVALID_KEY)
    assert Outcome.INVALID_KEY.stops_queue and records.counted_retries([refused]) == 0


def test_a_flood_of_violations_keeps_the_first_of_each_rule_and_counts_them_all(tmp_path: Path) -> None:
    record = AttemptRecord(number=1, outcome=Outcome.POLICY_VIOLATION)
    record.add_violations({"rule": "egress", "line": line} for line in range(1, 5001))
    record.add_violations([{"rule": "link", "path": "a"}, {"rule": "link", "path": "b"}])
    attempt = records.new_attempt(tmp_path)
    records.finish_attempt(attempt, record)
    [kept] = records.attempts(tmp_path)
    assert [v["line"] for v in kept.violations if v["rule"] == "egress"] == list(range(1, 21))
    assert [v["path"] for v in kept.violations if v["rule"] == "link"] == ["a", "b"]
    assert kept.violation_counts == {"egress": 5000, "link": 2}
