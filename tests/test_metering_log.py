"""The attempt's wire record: the tally the ledger, the budget and a provider failure are read from.

Exchanges are the scripted model server's own rendering of Anthropic Messages answers (the bytes
a provider sends), handed to the real ``MeterLog`` as the proxy hands them."""

from __future__ import annotations

import json
from pathlib import Path

from m4agent.harness import ledger, metering
from m4agent.harness.wire.exchange import Exchange
from m4agent.model_server.answers import Answer
from m4agent.model_server.anthropic import Anthropic
from m4agent.model_server.script import Usage

KEY = "sk-ant-campaign-key"


def _stream(text: str = "done") -> bytes:
    reply = Anthropic().render(Answer(text, None, Usage(input=100, output=20, cache_read=50), "claude-x"), True)
    return b"".join(reply.chunks or [])


def _exchange(body: bytes, status: int | None = 200, key: str = KEY) -> Exchange:
    request = json.dumps({"model": "claude-x", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
    return Exchange(host="api.anthropic.com", method="POST", path="/v1/messages", query="",
                    request_headers=(("x-api-key", key), ("content-type", "application/json")),
                    request_body=request.encode(), status=status,
                    response_headers=(("content-type", "text/event-stream"),), response_body=body)


def _log(tmp_path: Path, **options: float) -> metering.MeterLog:
    return metering.MeterLog(tmp_path / metering.WIRE_FILE, [KEY],
                             lambda usage, model: ledger.estimate(usage, "anthropic", "claude-sonnet-4").usd,
                             **options)


def test_the_tally_sums_the_providers_usage_and_leaves_unreported_fields_null(tmp_path: Path) -> None:
    log = _log(tmp_path)
    for _ in range(2):
        log.record(_exchange(_stream()), {"started": 0.0})
    summary = log.close()
    assert summary["usage"] == {"input": 200, "cache_read": 100, "cache_write": 0, "output": 40, "reasoning": None}
    assert summary["model_calls"] == 2 and summary["usd"] > 0


def test_a_stream_the_provider_cut_is_its_failure(tmp_path: Path) -> None:
    log = _log(tmp_path)
    body = _stream("word " * 200)
    log.record(_exchange(body[: len(body) // 2]), {"started": 0.0})
    assert metering.failure(log.close()) is not None


def test_a_stream_the_agent_cut_by_closing_is_no_provider_failure(tmp_path: Path) -> None:
    log = _log(tmp_path)
    body = _stream("word " * 200)
    log.record(_exchange(body[: len(body) // 2]), {"started": 0.0, "agent_closed": True})
    assert metering.failure(log.close()) is None


def test_an_error_answered_to_another_key_is_not_the_providers_failure(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.record(_exchange(_stream()), {"started": 0.0})
    refused = json.dumps({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
    log.record(_exchange(refused.encode(), 401, key="sk-ant-someone-elses"), {"started": 0.0})
    assert metering.failure(log.close()) is None


def test_the_campaign_keys_refusal_is_invalid_key(tmp_path: Path) -> None:
    log = _log(tmp_path)
    refused = json.dumps({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
    log.record(_exchange(refused.encode(), 401), {"started": 0.0})
    failed = metering.failure(log.close())
    assert failed is not None and failed[0] == "invalid_key"


def test_once_the_run_budget_is_spent_the_next_request_is_refused(tmp_path: Path) -> None:
    log = _log(tmp_path, per_run_usd=0.0001)
    assert log.refusal(_exchange(b"")) is None
    log.record(_exchange(_stream()), {"started": 0.0})
    assert "budget" in (log.refusal(_exchange(b"")) or "")
    assert log.close()["budget_spent"] is True


def test_lines_past_the_budget_are_counted_and_still_tallied(tmp_path: Path) -> None:
    log = metering.MeterLog(tmp_path / metering.WIRE_FILE, [KEY], lambda usage, model: 0.0, max_lines=2)
    for _ in range(5):
        log.record(_exchange(_stream()), {"started": 0.0})
    summary = log.close()
    lines = (tmp_path / metering.WIRE_FILE).read_text().splitlines()
    assert len(lines) == 3 and summary["not_logged"] == 3 and summary["usage"]["input"] == 500
