"""What every protocol reader answers, and the small helpers they share.

A reader knows one provider's wire format: which requests are model calls, the model
and the streaming flag, the usage in the provider's own fields mapped onto the
ledger's (``ledger.FIELDS``), the tool calls and text of the answer, the tool results
the request sends back, and an error carried inside a 200 stream. Readers get parsed
documents (``decode.documents``) and must not raise on any shape of them: every field
is checked for its type before use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from m4agent.harness.ledger import FIELDS
from m4agent.harness.trajectory import text_of, tool_input
from m4agent.harness.wire.decode import Doc

MAX_TEXT = 20_000   # characters per text field (answer text, each call's input, each result's output)
MAX_ITEMS = 500     # tool calls or results kept per exchange

Usage = dict[str, int | None]


@dataclass(frozen=True)
class Call:
    """A tool call of the model: the provider's call id, the tool's name, its input as text."""

    id: str
    name: str
    input: str


@dataclass(frozen=True)
class Result:
    """A tool result the request sends back to the model: the call id it answers, its output as text."""

    id: str
    output: str


@dataclass(frozen=True)
class ProviderError:
    """The provider's own words for a failure: its type or code, message and detail reasons."""

    kind: str = ""
    message: str = ""
    reasons: tuple[str, ...] = ()  # Gemini's details: ErrorInfo reasons, QuotaFailure quota ids


def bounded(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n[... {len(text) - MAX_TEXT} characters cut]"


def count(value: Any) -> int | None:
    """A token count as the provider gave it: a whole number >= 0, else None (not reported)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def no_usage() -> Usage:
    return dict.fromkeys(FIELDS)


def less(total: int | None, part: int | None) -> int | None:
    """``total - part`` for counts where ``total`` includes ``part`` (an unreported part takes nothing)."""
    if total is None:
        return None
    return max(0, total - (part or 0))


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def call(call_id: Any, name: Any, arguments: Any) -> Call:
    try:
        text = tool_input(arguments)
    except (ValueError, TypeError, RecursionError):
        text = str(arguments)[:MAX_TEXT]
    return Call(as_text(call_id)[:200], as_text(name)[:200], bounded(text))


def result(call_id: Any, output: Any) -> Result:
    try:
        text = output if isinstance(output, str) else text_of(output) if isinstance(output, list) else \
            tool_input(output) if output is not None else ""
    except (ValueError, TypeError, RecursionError):
        text = ""
    return Result(as_text(call_id)[:200], bounded(text))


def after_last(items: list[Any], is_model_turn: Any) -> list[Any]:
    """The items after the last one ``is_model_turn`` accepts (all of them when none is)."""
    last = -1
    for index, item in enumerate(items):
        if isinstance(item, dict) and is_model_turn(item):
            last = index
    return items[last + 1:]


def values(docs: list[Doc]) -> list[dict[str, Any]]:
    """The documents that are JSON objects (the shape every provider's events have)."""
    return [value for _, value in docs if isinstance(value, dict)]


class Reader:
    """One provider's wire format (subclasses implement every method)."""

    name = "reader"

    def matches(self, method: str, path: str) -> bool:
        raise NotImplementedError

    def conversation(self, request: dict[str, Any]) -> dict[str, Any]:
        """The part of the request body that holds the model call (Code Assist wraps it)."""
        return request

    def streaming(self, request: dict[str, Any], path: str) -> bool:
        return request.get("stream") is True

    def model(self, request: dict[str, Any], path: str, docs: list[Doc]) -> str | None:
        raise NotImplementedError

    def usage(self, docs: list[Doc]) -> Usage:
        raise NotImplementedError

    def answer(self, docs: list[Doc]) -> tuple[list[Call], str]:
        raise NotImplementedError

    def results(self, request: dict[str, Any]) -> list[Result]:
        raise NotImplementedError

    def stream_error(self, docs: list[Doc]) -> ProviderError | None:
        """An error the provider sent inside a successful answer (an ``error`` event of a stream)."""
        raise NotImplementedError

    def finished(self, docs: list[Doc]) -> bool:
        """Whether a streamed answer reached its closing event (a stream cut short did not)."""
        raise NotImplementedError
