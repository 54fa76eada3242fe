"""The attempt's wire record: every exchange the metering proxy relayed, and the tally the harness counts.

The egress proxy gives each finished HTTP exchange to ``MeterLog.record``, on its own
thread, as the bytes crossed (``wire.intercept``). The log reads it (``wire.meter``:
protocol, model, the provider's own usage fields, its error class, the model's tool calls
and the tool results sent back), keeps a running tally in memory, and writes one JSON line
per exchange to ``wire.jsonl`` in the attempt folder, a folder no container mounts. The
lines have a budget (``MAX_LINES``, ``MAX_FILE_BYTES``, and each line and text field is
bounded); past it they are counted, never the tally: the closing ``summary`` line holds the totals of every
exchange, and is what the ledger, the budget and the outcome read.

Why this and not the CLI's output: the agent's tool commands run beside the CLI and can
write into its output streams, so anything parsed from them (a reported cost, a 429 line,
a step) can be forged. They cannot forge the provider's TLS stream. What a CLI reports is
kept beside the wire's figures as ``reported``, and a disagreement is recorded.

Usage fields a protocol does not report stay ``None`` in the tally (Anthropic reports no
reasoning count, OpenAI no cache writes, Ollama neither cache), never 0.

Whose exchange is it: the CLI and the tool commands it runs share the container, so the
proxy cannot tell them apart. The log records which credential each request carried
(``campaign``: one of the secrets given to the attempt; ``other``; ``none``) and counts the
cost of every exchange (tokens bought with the campaign's key are the campaign's money,
whoever asked). A provider failure makes the attempt's outcome only when it is the answer to
the last model request that carried the campaign's credential (``failure``); for an endpoint
that takes no key (no secret given), the last model request.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from m4agent import run_folder
from m4agent.harness import ledger
from m4agent.harness.wire.credential import credential
from m4agent.harness.wire.exchange import Exchange
from m4agent.harness.wire.meter import meter

WIRE_FILE = run_folder.WIRE_FILE
MAX_LINES = 5_000  # exchange lines per attempt; past this, counted only (the tally counts every exchange)
MAX_LINE_BYTES = 512 * 1024  # a line past this keeps its figures and drops its texts
MAX_FILE_BYTES = 64 * 1024 * 1024  # the lines written in all; past this, counted only

# Provider error classes (``wire.read``) and the attempt outcome each makes when it ends the attempt.
FAILURE_OUTCOMES = {
    "quota": ("quota", "provider quota exhausted"),
    "rate_limit": ("quota", "provider rate limit"),
    "invalid_key": ("invalid_key", "provider refused the credentials (invalid key)"),
    "unknown_model": ("invalid_key", "provider does not know the model"),
    "server_error": ("infra_error", "provider server error"),
    "no_answer": ("infra_error", "provider did not answer"),
}


class MeterLog:
    """One attempt's wire record: ``record`` per exchange (the proxy's thread), ``close`` once at the end.

    ``price(usage, model)`` gives the dollars of one exchange's usage (None: no price for the
    model); ``per_run_usd`` makes ``refusal`` stop further model requests once spent.
    """

    def __init__(self, path: Path, secrets: Sequence[str], price: Callable[[ledger.Usage, str], float | None],
                 *, per_run_usd: float | None = None, max_lines: int = MAX_LINES) -> None:
        self.path = path
        self.secrets = [s for s in secrets if s]
        self.price = price
        self.per_run_usd = per_run_usd
        self.max_lines = max_lines
        self.exchanges = 0
        self.model_calls = 0  # model requests answered 200 (the turns the usage covers)
        self.usage: dict[str, int | None] = dict.fromkeys(ledger.FIELDS)
        self.usd = 0.0
        self.unpriced = 0  # exchanges with usage whose model has no price
        self.models: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.by_proxy: Counter[int] = Counter()
        self.last_campaign_call: dict[str, Any] | None = None
        self.not_logged = 0
        self.written = 0  # bytes of exchange lines written
        self.budget_spent = False
        path.touch(exist_ok=True)

    # ---- the proxy's side

    def refusal(self, exchange: Exchange) -> str | None:
        """Why the proxy answers this request itself instead of forwarding it (the run's budget), or None."""
        if self.per_run_usd is not None and self.usd >= self.per_run_usd:
            self.budget_spent = True
            return f"the run's budget of ${self.per_run_usd:g} is spent (${self.usd:.4f} so far)"
        return None

    def record(self, exchange: Exchange, facts: dict[str, Any]) -> None:
        """Read one exchange, add it to the tally, and write its line while the budget lasts."""
        self.exchanges += 1
        line: dict[str, Any] = {"event": "exchange", "n": self.exchanges,
                                "ts": round(float(facts.get("started", time.time())), 3),
                                "duration_s": facts.get("duration_s"), "host": exchange.host,
                                "method": exchange.method, "path": exchange.path[:512], "status": exchange.status,
                                "by_proxy": bool(facts.get("by_proxy")), "truncated": exchange.truncated,
                                "credential": credential(exchange, self.secrets)}
        if facts.get("agent_closed"):
            line["agent_closed"] = True
        if line["by_proxy"]:
            self.by_proxy[exchange.status or 0] += 1
        else:
            read = meter(exchange).to_json()
            line.update(read)
            self._tally(line)
        if self.exchanges > self.max_lines or self.written >= MAX_FILE_BYTES:
            self.not_logged += 1
            return
        text = json.dumps(line, sort_keys=True)
        if len(text) > MAX_LINE_BYTES:
            line.update(text="[cut: line over the size limit]", calls=[], results=[], cut=True)
            text = json.dumps(line, sort_keys=True)
        self.written += len(text) + 1
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")

    def _tally(self, line: dict[str, Any]) -> None:
        if line.get("protocol") is None:
            return
        usage = line.get("usage") or {}
        if any(usage.get(name) is not None for name in ledger.FIELDS):
            for name in ledger.FIELDS:
                if usage.get(name) is not None:
                    self.usage[name] = (self.usage[name] or 0) + int(usage[name])
            usd = self.price(ledger.Usage.from_dict(usage), str(line.get("model") or ""))
            if usd is None:
                self.unpriced += 1
            else:
                self.usd += usd
        if line.get("status") == 200 and not line.get("error"):
            self.model_calls += 1
            self.models[str(line.get("model") or "unknown")] += 1
        if line.get("error"):
            self.errors[str(line["error"])] += 1
        if line["credential"] == "campaign" or not self.secrets:  # a keyless endpoint: every call is the run's
            self.last_campaign_call = {k: line.get(k) for k in ("n", "status", "error", "error_detail", "host",
                                                                  "path", "model")}
            if line.get("agent_closed"):  # the agent's side cut the answer: not the provider's failure
                self.last_campaign_call.update(error=None, agent_closed=True)

    def close(self) -> dict[str, Any]:
        """Write the summary line (once the proxy has stopped) and return it."""
        summary = {"event": "summary", "exchanges": self.exchanges, "model_calls": self.model_calls,
                   "usage": self.usage, "usd": round(self.usd, 6), "unpriced": self.unpriced,
                   "models": dict(self.models), "errors": dict(self.errors),
                   "answered_by_proxy": {str(k): v for k, v in sorted(self.by_proxy.items())},
                   "last_campaign_call": self.last_campaign_call, "not_logged": self.not_logged,
                   "budget_spent": self.budget_spent}
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(summary, sort_keys=True) + "\n")
        return summary


# --------------------------------------------------------------------------- reading it back


@dataclass(frozen=True)
class Wire:
    """What an attempt's ``wire.jsonl`` says: its exchange lines (as written) and its summary."""

    exchanges: list[dict[str, Any]]
    summary: dict[str, Any] | None


def read(attempt: Path) -> Wire | None:
    """The attempt's wire record, or None when it has none (built-in agents, attempts before metering)."""
    path = attempt / WIRE_FILE
    if not path.is_file():
        return None
    exchanges: list[dict[str, Any]] = []
    summary = None
    for event in _lines(path):
        if event.get("event") == "summary":
            summary = event
        elif event.get("event") == "exchange":
            exchanges.append(event)
    return Wire(exchanges, summary)


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(event, dict):
                yield event


def failure(summary: dict[str, Any]) -> tuple[str, str] | None:
    """The provider failure that ended the attempt, as ``(outcome, reason)``, or None.

    Only the answer to the last model request that carried the campaign's credential counts:
    an error the agent's own tools provoked with another key, or that the CLI got past, is not
    the provider's failure."""
    last = summary.get("last_campaign_call") or {}
    error = last.get("error")
    if error not in FAILURE_OUTCOMES:
        return None
    outcome, reason = FAILURE_OUTCOMES[error]
    detail = last.get("error_detail") or f"HTTP {last.get('status')}"
    return outcome, f"{reason}: {detail} ({last.get('host')}{last.get('path')}, seen on the wire)"


def ledger_entry(summary: dict[str, Any], provider: str, model: str, reported: dict[str, Any] | None,
                 price_table: str) -> dict[str, Any]:
    """The attempt's ledger from the wire's tally; what the CLI reported kept beside it, disagreements listed."""
    usage = {name: summary["usage"].get(name) for name in ledger.FIELDS} | {"requests": summary["model_calls"]}
    models = summary.get("models") or {}
    used = max(models, key=lambda m: models[m]) if models else model
    priced = not summary.get("unpriced")
    cost = {"usd": summary.get("usd") if priced else None, "source": "wire" if priced else "unknown",
            "price_table": price_table}
    entry: dict[str, Any] = {"source": "wire", "usage": usage, "provider": provider, "model": used,
                             "models": models, "cost": cost, "estimated_usd": cost["usd"]}
    if reported is not None:
        entry["reported"] = reported
        entry["disagreements"] = sorted(
            name for name in (*ledger.FIELDS, "requests")
            if usage.get(name) is not None and (reported.get("usage") or {}).get(name) is not None
            and int(reported["usage"][name]) != usage[name])
    return entry
