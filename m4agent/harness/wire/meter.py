"""What one captured exchange was: the model call, its usage, its failure, its steps.

``meter`` reads an ``Exchange`` with the reader of its protocol (told by method and
path, as the scripted model server tells them) and returns a ``Metered``: the numbers
and steps the harness records instead of the CLI's own report, which the agent's tool
commands can forge. Exchanges that are not model calls (token counts, model lists,
logins, telemetry, Codex's WebSocket attempt) get ``protocol`` None and only a failure
class: informative (a key refused on a model list), but no model call's failure.

The bytes are the provider's and the agent's, so nothing here trusts them: bodies are
decoded within ``decode.MAX_DECODED``, every text field is cut at ``reader.MAX_TEXT``
characters, and no shape of body makes ``meter`` raise (a reader fault is reported
in ``notes``, so the proxy keeps serving). ``error_detail`` never holds a request
header or query value (a key in an error message is replaced).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from m4agent.harness.ledger import FIELDS
from m4agent.harness.wire import provider_errors
from m4agent.harness.wire.anthropic import Anthropic
from m4agent.harness.wire.decode import decode, documents, load_json
from m4agent.harness.wire.exchange import Exchange, header
from m4agent.harness.wire.gemini import Gemini
from m4agent.harness.wire.ollama import Ollama
from m4agent.harness.wire.openai import ChatCompletions, Responses
from m4agent.harness.wire.reader import MAX_ITEMS, Call, Reader, Result, Usage, as_dict, no_usage

READERS: tuple[Reader, ...] = (Anthropic(), Responses(), ChatCompletions(), Gemini(), Ollama())
NO_ANSWER = "no response (the upstream closed or stalled)"


@dataclass(frozen=True)
class Metered:
    """One exchange read: ``protocol`` None when it is not a model call; ``usage`` over ``ledger.FIELDS``
    with None for a count the protocol does not report (or the answer did not carry)."""

    protocol: str | None
    model: str | None = None
    streaming: bool = False
    usage: Usage = field(default_factory=no_usage)
    error: str | None = None         # one of errors.CLASSES
    error_detail: str | None = None  # the provider's type/code and message, <= errors.MAX_DETAIL characters
    calls: tuple[Call, ...] = ()     # the model's tool calls in this answer
    text: str = ""                   # the model's text in this answer
    results: tuple[Result, ...] = ()  # tool results the request sends back since the model's last turn
    notes: tuple[str, ...] = ()      # what could not be read fully (encodings, size caps, a cut capture)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["usage"] = {name: self.usage.get(name) for name in FIELDS}
        data["calls"], data["results"], data["notes"] = (list(map(asdict, self.calls)),
                                                         list(map(asdict, self.results)), list(self.notes))
        return data


def reader_for(method: str, path: str) -> Reader | None:
    """The reader of the model call ``method path`` is, or None when it is no model call."""
    return next((r for r in READERS if r.matches(method.upper(), path)), None)


def _request_values(ex: Exchange) -> list[str]:
    """Every value the request carried in headers or query: never to appear in a detail."""
    found = [value.strip() for _, value in ex.request_headers]
    found += [part for _, value in ex.request_headers for part in value.split()]
    try:
        found += [value for _, value in parse_qsl(ex.query, keep_blank_values=False)]
    except ValueError:
        pass
    return found


def _meter(ex: Exchange) -> Metered:
    sent = decode(ex.request_body, header(ex.request_headers, "content-encoding"))
    answer = decode(ex.response_body, header(ex.response_headers, "content-encoding"))
    notes = ["capture cut: a body was longer than the proxy keeps"] if ex.truncated else []
    notes += [f"{which} body: {d.problem}" for which, d in (("request", sent), ("response", answer)) if d.problem]
    reader = reader_for(ex.method, ex.path)
    request = as_dict(load_json(sent.data))
    docs = documents(answer.data, header(ex.response_headers, "content-type"))
    ok = ex.status is not None and 200 <= ex.status < 300
    if ex.status is not None and not ok:
        problem = provider_errors.provider_error(docs)
    else:
        problem = reader.stream_error(docs) if reader is not None else None
    error = provider_errors.classify(ex.status, problem)
    fallback = NO_ANSWER if ex.status is None else f"HTTP {ex.status}"
    if reader is not None and ok and error is None and not reader.finished(docs):
        if ex.truncated or answer.problem:
            notes.append("the answer's closing event was not seen (cut by the capture, or not decoded)")
        else:  # the provider cut its answer short (or sent something that is not its format)
            error = "server_error"
            fallback = "the answer ended before its closing event" if docs else "the answer is not readable"
    detail = provider_errors.scrub(provider_errors.detail(problem, fallback) if error else None, _request_values(ex))
    if reader is None:
        return Metered(None, error=error, error_detail=detail, notes=tuple(notes))
    calls, text = reader.answer(docs) if ok else ([], "")
    streaming = reader.streaming(request, ex.path) if request else \
        any(kind in header(ex.response_headers, "content-type").lower() for kind in ("event-stream", "ndjson"))
    return Metered(reader.name, reader.model(request, ex.path, docs), streaming, reader.usage(docs), error, detail,
                   tuple(calls[:MAX_ITEMS]), text,
                   tuple(reader.results(reader.conversation(request))[:MAX_ITEMS]), tuple(notes))


def meter(ex: Exchange) -> Metered:
    """What ``ex`` was (see the module's docstring). Never raises."""
    try:
        return _meter(ex)
    except Exception as exc:  # noqa: BLE001 (a reader fault must not stop the proxy; it is reported)
        return Metered(None, notes=(f"meter failed: {type(exc).__name__}",))
