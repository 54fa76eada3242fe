"""OpenAI Responses (``POST /v1/responses``, Codex) and Chat Completions (``/v1/chat/completions``:
OpenAI-compatible endpoints, pi), streaming or not.

Usage: input counts include the cached part (``cached_tokens``), so the ledger's input
is input minus cached; output includes reasoning (``reasoning_tokens``); no cache
writes are reported. Responses streams carry usage in the closing
``response.completed`` (or ``.incomplete``/``.failed``); Chat streams in a usage chunk.
"""

from __future__ import annotations

from typing import Any

from m4agent.harness.wire.decode import Doc
from m4agent.harness.wire.reader import (
    Call,
    ProviderError,
    Reader,
    Result,
    Usage,
    after_last,
    as_dict,
    as_list,
    as_text,
    bounded,
    call,
    count,
    less,
    no_usage,
    result,
    values,
)

_CLOSING = ("response.completed", "response.incomplete", "response.failed")
_MODEL_ITEMS = ("function_call", "local_shell_call", "custom_tool_call", "reasoning")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def _model(request: dict[str, Any], responses: list[dict[str, Any]]) -> str | None:
    for value in [request, *responses]:
        if isinstance(value.get("model"), str):
            return value["model"]
    return None


def _error(raw: Any) -> ProviderError | None:
    error = as_dict(raw)
    if not error:
        return None
    return ProviderError(as_text(error.get("code")) or as_text(error.get("type")), as_text(error.get("message")))


class Responses(Reader):
    name = "openai-responses"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/").endswith("/responses")

    def _responses(self, docs: list[Doc]) -> list[dict[str, Any]]:
        """The response objects: the body itself, or each stream event's ``response``."""
        found = []
        for doc in values(docs):
            if doc.get("object") == "response":
                found.append(doc)
            elif isinstance(doc.get("response"), dict):
                found.append(doc["response"])
        return found

    def model(self, request: dict[str, Any], path: str, docs: list[Doc]) -> str | None:
        return _model(request, self._responses(docs))

    def usage(self, docs: list[Doc]) -> Usage:
        usage = no_usage()
        for response in self._responses(docs):
            raw = as_dict(response.get("usage"))
            if not raw:
                continue
            cached = count(as_dict(raw.get("input_tokens_details")).get("cached_tokens"))
            usage = {"input": less(count(raw.get("input_tokens")), cached), "cache_read": cached,
                     "cache_write": None, "output": count(raw.get("output_tokens")),
                     "reasoning": count(as_dict(raw.get("output_tokens_details")).get("reasoning_tokens"))}
        return usage

    def answer(self, docs: list[Doc]) -> tuple[list[Call], str]:
        items = [as_dict(d.get("item")) for d in values(docs) if d.get("type") == "response.output_item.done"]
        if not items:  # a whole response, or a stream whose items came only in its closing event
            for response in self._responses(docs):
                items = [as_dict(i) for i in as_list(response.get("output"))] or items
        calls, texts = [], []
        for item in items:
            kind = item.get("type")
            if kind == "function_call":
                calls.append(call(item.get("call_id"), item.get("name"), item.get("arguments")))
            elif kind == "custom_tool_call":
                calls.append(call(item.get("call_id"), item.get("name"), as_text(item.get("input"))))
            elif kind == "local_shell_call":
                calls.append(call(item.get("call_id"), "local_shell", as_dict(item.get("action"))))
            elif kind == "message":
                texts += [as_text(c.get("text")) for c in map(as_dict, as_list(item.get("content")))
                          if c.get("type") == "output_text"]
        if not texts:
            texts = [as_text(d.get("delta")) for d in values(docs) if d.get("type") == "response.output_text.delta"]
        return calls, bounded("".join(texts))

    def results(self, request: dict[str, Any]) -> list[Result]:
        """The outputs of the last turn's calls. Codex records each call's output right after the call
        (``call, output, call, output``), so the turn is walked back to its start: a message, or the
        reasoning item a reasoning model opens each turn with. Consecutive turns with neither between
        them read as one; a result's id tells a caller it has seen it."""
        found: list[Result] = []
        for item in reversed([as_dict(i) for i in as_list(request.get("input"))]):
            kind = item.get("type", "message")
            if kind in _OUTPUTS:
                found.append(result(item.get("call_id"), item.get("output")))
            elif kind not in _MODEL_ITEMS or kind == "reasoning":
                break
        return found[::-1]

    def stream_error(self, docs: list[Doc]) -> ProviderError | None:
        for doc in values(docs):
            if doc.get("type") == "response.failed":
                return _error(as_dict(doc.get("response")).get("error")) or ProviderError("response.failed")
            if doc.get("type") == "error":
                return _error(doc.get("error")) or _error(doc) or ProviderError("error")
        return None

    def finished(self, docs: list[Doc]) -> bool:
        return any(d.get("type") in _CLOSING or d.get("object") == "response" for d in values(docs))


class ChatCompletions(Reader):
    name = "openai-chat"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/").endswith("/chat/completions")

    def model(self, request: dict[str, Any], path: str, docs: list[Doc]) -> str | None:
        return _model(request, values(docs))

    def usage(self, docs: list[Doc]) -> Usage:
        usage = no_usage()
        for doc in values(docs):
            raw = as_dict(doc.get("usage"))
            if not raw:
                continue
            cached = count(as_dict(raw.get("prompt_tokens_details")).get("cached_tokens"))
            usage = {"input": less(count(raw.get("prompt_tokens")), cached), "cache_read": cached,
                     "cache_write": None, "output": count(raw.get("completion_tokens")),
                     "reasoning": count(as_dict(raw.get("completion_tokens_details")).get("reasoning_tokens"))}
        return usage

    def answer(self, docs: list[Doc]) -> tuple[list[Call], str]:
        texts: list[str] = []
        calls: dict[Any, dict[str, Any]] = {}  # index -> {id, name, arguments pieces}
        for doc in values(docs):
            choices = [as_dict(c) for c in as_list(doc.get("choices"))]
            for choice in choices[:1]:  # the first choice is the one a CLI acts on
                message = as_dict(choice.get("message")) or as_dict(choice.get("delta"))
                texts.append(as_text(message.get("content")))
                for number, raw in enumerate(as_list(message.get("tool_calls"))):
                    raw = as_dict(raw)
                    index = raw.get("index")
                    key = index if isinstance(index, int) else number
                    slot = calls.setdefault(key, {"id": "", "name": "", "arguments": []})
                    function = as_dict(raw.get("function"))
                    slot["id"] = slot["id"] or as_text(raw.get("id"))
                    slot["name"] = slot["name"] or as_text(function.get("name"))
                    arguments = function.get("arguments")
                    slot["arguments"].append(arguments if isinstance(arguments, str) else "")
                    if isinstance(arguments, dict):  # some compatible servers send an object
                        slot["object"] = arguments
        found = [call(s["id"], s["name"], s.get("object") or "".join(s["arguments"])) for s in calls.values()]
        return found, bounded("".join(texts))

    def results(self, request: dict[str, Any]) -> list[Result]:
        newer = after_last(as_list(request.get("messages")), lambda m: m.get("role") == "assistant")
        return [result(m.get("tool_call_id"), m.get("content")) for m in map(as_dict, newer)
                if m.get("role") == "tool"]

    def stream_error(self, docs: list[Doc]) -> ProviderError | None:
        for doc in values(docs):
            if doc.get("error"):  # compatible servers send "error": null in every chunk
                return _error(doc.get("error")) or ProviderError(message=str(doc.get("error"))[:200])
        return None

    def finished(self, docs: list[Doc]) -> bool:
        return any(value == "[DONE]" for _, value in docs) or \
            any(d.get("object") == "chat.completion" for d in values(docs))
