"""Scripts of turns: what the scripted model server answers, as data (JSON or TOML).

A script is a list of turns, answered in order of the conversation: the request whose
conversation already holds N answers of the model gets turn N (the server counts the
model's earlier messages in the request, so it keeps no state between requests and a
CLI that retries a request gets the same turn again). A turn is one of:

- ``shell = "COMMAND"``: a tool call asking the agent to run a shell command (the server
  picks the agent's own shell tool from the tools the request declares);
- ``text = "..."``: a final answer (the conversation ends);
- ``fail = "KIND"``: a provider failure (``FAILURES``): rate limit, server error,
  invalid key, exhausted quota, a model that does not exist, or a hang that never answers.

Each turn may carry ``usage``: the tokens the server reports for it, as
``{input, output, cache_read, cache_write, reasoning}`` (uncached input, output,
cache read, cache write, reasoning; all default 0). They are the numbers a test
compares with what an adapter parsed from its trace. Example (TOML)::

    model = "claude-sonnet-4-5"
    [[turns]]
    shell = "python3 -c 'import duckdb; ...'"
    usage = { input = 1200, cache_write = 900, output = 80 }
    [[turns]]
    text = "output.csv is written."
    usage = { input = 40, cache_read = 2100, output = 12 }

``faults`` (optional) is a list of ``{kind = "quota", requests = 2}``: the first
``requests`` requests that reach a turn are answered with that failure instead,
whatever their turn; the server counts them (for tests of retries and quota stops).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError

FAILURES = ("rate_limit", "server_error", "invalid_key", "quota", "unknown_model", "hang")
USAGE_FIELDS = ("input", "output", "cache_read", "cache_write", "reasoning")


@dataclass(frozen=True)
class Usage:
    """Tokens of one turn: uncached input, output, cache read, cache write, reasoning (part of output)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in USAGE_FIELDS}

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{name: getattr(self, name) + getattr(other, name) for name in USAGE_FIELDS})


@dataclass(frozen=True)
class Turn:
    """One answer of the model: a shell tool call, a final text, or a failure."""

    shell: str | None = None
    text: str | None = None
    fail: str | None = None
    usage: Usage = field(default_factory=Usage)

    @property
    def kind(self) -> str:
        return "shell" if self.shell is not None else "fail" if self.fail is not None else "text"


@dataclass(frozen=True)
class Fault:
    """The first ``requests`` requests are answered with failure ``kind``, whatever their turn."""

    kind: str
    requests: int


@dataclass(frozen=True)
class Script:
    """A parsed script: the turns in order, the model name to echo, and request-count faults."""

    turns: tuple[Turn, ...]
    model: str = "scripted-model"
    faults: tuple[Fault, ...] = ()

    def turn(self, index: int) -> Turn:
        """Turn ``index``; past the end, a closing text (a CLI that keeps asking gets an end)."""
        if index < len(self.turns):
            return self.turns[index]
        return Turn(text="(the script has no more turns)")

    def total_usage(self, kinds: tuple[str, ...] = ("shell", "text")) -> Usage:
        """The sum of the usage of every turn of the given kinds (what a full run reports)."""
        total = Usage()
        for turn in self.turns:
            if turn.kind in kinds:
                total = total + turn.usage
        return total


def _usage(raw: Any, where: str) -> Usage:
    if raw is None:
        return Usage()
    if not isinstance(raw, dict) or set(raw) - set(USAGE_FIELDS):
        raise M4AgentError(f"{where}: usage must be a table of {', '.join(USAGE_FIELDS)}")
    values = {}
    for name, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise M4AgentError(f"{where}: usage.{name} must be a whole number >= 0")
        values[name] = value
    return Usage(**values)


def parse_script(doc: dict[str, Any], source: str = "script") -> Script:
    """A script from its JSON/TOML document; every mistake names the turn and what to fix."""
    raw_turns = doc.get("turns")
    if not isinstance(raw_turns, list) or not raw_turns:
        raise M4AgentError(f"{source}: needs a non-empty list `turns` (see m4agent.model_server.script)")
    turns = []
    for number, raw in enumerate(raw_turns, 1):
        where = f"{source}: turn {number}"
        if not isinstance(raw, dict):
            raise M4AgentError(f"{where} must be a table")
        unknown = set(raw) - {"shell", "text", "fail", "usage"}
        if unknown:
            raise M4AgentError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        kinds = [k for k in ("shell", "text", "fail") if k in raw]
        if len(kinds) != 1 or not isinstance(raw[kinds[0]], str):
            raise M4AgentError(f"{where} needs exactly one of shell, text or fail, as a string")
        if "fail" in raw and raw["fail"] not in FAILURES:
            raise M4AgentError(f"{where}: fail must be one of {', '.join(FAILURES)}")
        turns.append(Turn(shell=raw.get("shell"), text=raw.get("text"), fail=raw.get("fail"),
                          usage=_usage(raw.get("usage"), where)))
    faults = []
    for raw in doc.get("faults", []):
        if not isinstance(raw, dict) or raw.get("kind") not in FAILURES or not isinstance(raw.get("requests"), int):
            raise M4AgentError(f"{source}: each fault needs kind (one of {', '.join(FAILURES)}) and requests")
        faults.append(Fault(raw["kind"], raw["requests"]))
    model = doc.get("model", "scripted-model")
    if not isinstance(model, str):
        raise M4AgentError(f"{source}: model must be a string")
    return Script(tuple(turns), model, tuple(faults))


def load_script(path: Path) -> Script:
    """Read a script file: ``.json`` as JSON, anything else as TOML."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise M4AgentError(f"cannot read the script {path}: {exc}") from exc
    try:
        doc = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise M4AgentError(f"{path}: not valid {'JSON' if path.suffix == '.json' else 'TOML'} ({exc})") from exc
    return parse_script(doc, str(path))
