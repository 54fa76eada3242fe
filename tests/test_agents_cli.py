"""The four real agent CLIs end to end: real container, real egress proxy, scripted model server, graded.

Each test runs one CLI of the agent image on mimic-sofa-24h. The scripted server,
standing in for the provider's own host name over TLS, asks for one shell command
(SQL on the workspace database that writes output.csv) and then ends; the harness
grades the output and the adapter's ledger must hold exactly the tokens the server
reported, in the form that CLI reports them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.dry_run import dry_run, task_script

from m4agent.harness import records
from m4agent.harness.records import Outcome
from m4agent.harness.view import write_view

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def data_dir(engine: Any, harness_data_dir: Path) -> Path:
    return harness_data_dir


def _scored(run: Any) -> dict[str, Any]:
    (attempt,) = run.attempts()
    assert attempt.outcome is Outcome.SCORED, (attempt.outcome, attempt.reason, run.requests)
    result = run.result()
    assert result is not None and result["outcome"] == "scored"
    grading = result["grading"]
    assert grading["key_recall"] == 1.0, grading  # every ICU stay: the SQL ran on the workspace database
    assert (run.run_folder() / "output.csv").read_text().startswith("subject_id,hadm_id,stay_id,sofa")
    return attempt.extra["ledger"]


def test_claude_completes_the_task_and_its_ledger_counts_every_token_once(tmp_path: Path, data_dir: Path) -> None:
    run = dry_run(tmp_path, data_dir, agent="claude", hosts=["api.anthropic.com"],
                  script=task_script("claude-sonnet-4-5"), model="claude-sonnet-4-5",
                  secrets={"ANTHROPIC_API_KEY": "sk-ant-dryrun-0000"}, run_canary=True)
    ledger = _scored(run)
    # Anthropic: input uncached, cache writes and reads apart, output with thinking inside
    assert ledger["usage"] == {"input": 2550, "cache_read": 4100, "cache_write": 1800, "output": 235,
                               "reasoning": 0, "requests": 2}
    assert ledger["model"] == "claude-sonnet-4-5"
    assert ledger["cost"]["source"] == "reported"
    assert ledger["cost"]["usd"] == pytest.approx(ledger["estimated_usd"])  # Claude's price equals our table's
    page = write_view(run.run_folder()).read_text()  # the viewer reads the real trace: the SQL it ran, marks
    assert "mimiciv_icu.icustays" in page and "class='mismatch'" in page
    egress = (run.run_folder() / "egress.jsonl").read_text()
    assert "routed to 127.0.0.1:" in egress and '"allowed": false' not in egress


def test_codex_completes_the_task_and_its_ledger_splits_cached_input(tmp_path: Path, data_dir: Path) -> None:
    run = dry_run(tmp_path, data_dir, agent="codex", hosts=["api.openai.com"], script=task_script("gpt-5"),
                  model="gpt-5", secrets={"OPENAI_API_KEY": "sk-dryrun-0000"})
    ledger = _scored(run)
    # OpenAI reports no cache writes: the script's cache_write tokens are part of plain input there
    assert ledger["usage"] == {"input": 2550, "cache_read": 4100, "cache_write": 0, "output": 235,
                               "reasoning": 0, "requests": 1}
    assert ledger["cost"]["source"] == "estimated"


def test_gemini_completes_the_task_and_its_ledger_reads_the_result_stats(tmp_path: Path, data_dir: Path) -> None:
    run = dry_run(tmp_path, data_dir, agent="gemini", hosts=["generativelanguage.googleapis.com"],
                  script=task_script("gemini-2.5-pro"), model="gemini-2.5-pro",
                  secrets={"GEMINI_API_KEY": "dryrun-0000"})
    ledger = _scored(run)
    # Gemini CLI's stats name no thinking count; the ledger finds it in their total (Gemini reports no writes)
    assert ledger["usage"] == {"input": 2550, "cache_read": 4100, "cache_write": 0, "output": 235,
                               "reasoning": 60, "requests": 2}


def test_pi_completes_the_task_on_a_local_openai_compatible_endpoint(tmp_path: Path, data_dir: Path) -> None:
    run = dry_run(tmp_path, data_dir, agent="pi", hosts=["ollama.local"], script=task_script("qwen3:8b"),
                  model="qwen3:8b", secrets={},
                  options={"provider": "ollama", "base_url": "https://ollama.local/v1"})
    ledger = _scored(run)
    assert ledger["usage"]["cache_read"] == 4100 and ledger["usage"]["output"] == 235
    assert ledger["cost"]["usd"] == 0.0


AGENTS = {  # how each CLI reaches the scripted server: hosts routed, secrets, options
    "claude": (["api.anthropic.com"], {"ANTHROPIC_API_KEY": "sk-ant-dryrun-0000"}, {}),
    "codex": (["api.openai.com"], {"OPENAI_API_KEY": "sk-dryrun-0000"}, {}),
    "gemini": (["generativelanguage.googleapis.com"], {"GEMINI_API_KEY": "dryrun-0000"}, {}),
    "pi": (["ollama.local"], {}, {"provider": "ollama", "base_url": "https://ollama.local/v1"}),
}


@pytest.mark.parametrize(("agent", "kind", "outcome"), [
    ("claude", "rate_limit", Outcome.QUOTA), ("claude", "server_error", Outcome.INFRA_ERROR),
    ("claude", "invalid_key", Outcome.INFRA_ERROR), ("codex", "quota", Outcome.QUOTA),
    ("gemini", "quota", Outcome.QUOTA), ("pi", "invalid_key", Outcome.INFRA_ERROR),
])  # (each CLI's other messages are mapped in test_agents_options, from the traces these runs left)
def test_a_provider_failure_is_never_the_models_zero(agent: str, kind: str, outcome: Outcome, tmp_path: Path,
                                                     data_dir: Path) -> None:
    hosts, secrets, options = AGENTS[agent]
    run = dry_run(tmp_path, data_dir, agent=agent, hosts=hosts, script={"turns": [{"fail": kind}]},
                  secrets=secrets, options=options, model="scripted" if agent == "pi" else "default")
    (attempt,) = run.attempts()
    assert attempt.outcome is outcome, (attempt.reason, attempt.exit_code)
    assert run.result() is None  # retried later (or left pending), never graded as a zero


def test_a_provider_that_hangs_ends_in_timeout(tmp_path: Path, data_dir: Path) -> None:
    run = dry_run(tmp_path, data_dir, agent="claude", hosts=["api.anthropic.com"],
                  script={"turns": [{"fail": "hang"}]}, secrets={"ANTHROPIC_API_KEY": "sk-ant-dryrun-0000"},
                  agent_seconds=10)
    (attempt,) = run.attempts()
    assert attempt.outcome is Outcome.TIMEOUT
    assert any(r.get("kind") == "fail:hang" for r in run.requests)


def test_a_quota_stop_pauses_the_queue_and_the_campaign_resumes_without_losing_a_run(
        tmp_path: Path, data_dir: Path) -> None:
    script = {**task_script("claude-sonnet-4-5"), "faults": [{"kind": "quota", "requests": 1}]}
    run = dry_run(tmp_path, data_dir, agent="claude", hosts=["api.anthropic.com"], script=script, trials=2,
                  secrets={"ANTHROPIC_API_KEY": "sk-ant-dryrun-0000"}, runs=2)
    first, second = run.statuses
    assert first["states"] == {"pending": 2} and first["attempts"] == 1  # the queue stopped: no run burnt
    assert first["stopped"] == ["anthropic"] and "stopped" not in second
    assert second["states"] == {"done": 2} and second["outcomes"] == {"scored": 2}
    per_run = sorted([a.outcome.value for a in records.attempts(folder)] for folder in run.run_folders())
    assert per_run == [["quota", "scored"], ["scored"]]  # one final attempt per run, none duplicated


def test_a_spent_campaign_budget_starts_no_more_runs(tmp_path: Path, data_dir: Path) -> None:
    run = dry_run(tmp_path, data_dir, agent="claude", hosts=["api.anthropic.com"],
                  script=task_script("claude-sonnet-4-5"), model="claude-sonnet-4-5", trials=2,
                  secrets={"ANTHROPIC_API_KEY": "sk-ant-dryrun-0000"},
                  matrix_extra="[budget]\nper_campaign_usd = 0.001\n")
    (status,) = run.statuses
    assert status["states"] == {"done": 1, "pending": 1}  # the first run spent the budget; the second waits
    assert status["stopped"] == ["budget"]
