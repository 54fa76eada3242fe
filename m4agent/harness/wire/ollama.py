"""Ollama's native chat (``POST /api/chat``), newline-delimited JSON when streaming (its default).

Usage: ``prompt_eval_count`` (input) and ``eval_count`` (output), on the closing
``done`` line; Ollama reports no cache or reasoning counts. Calls carry no id in older
Ollama versions and results name their tool (``tool_name``): the tool's name stands in.
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
    no_usage,
    result,
    values,
)


class Ollama(Reader):
    name = "ollama"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/") == "/api/chat"

    def streaming(self, request: dict[str, Any], path: str) -> bool:
        return request.get("stream") is not False

    def model(self, request: dict[str, Any], path: str, docs: list[Doc]) -> str | None:
        for value in [request, *values(docs)]:
            if isinstance(value.get("model"), str):
                return value["model"]
        return None

    def usage(self, docs: list[Doc]) -> Usage:
        usage = no_usage()
        for doc in values(docs):
            if doc.get("done") is True:
                usage["input"], usage["output"] = count(doc.get("prompt_eval_count")), count(doc.get("eval_count"))
        return usage

    def answer(self, docs: list[Doc]) -> tuple[list[Call], str]:
        calls, texts = [], []
        for doc in values(docs):
            message = as_dict(doc.get("message"))
            texts.append(as_text(message.get("content")))
            for raw in map(as_dict, as_list(message.get("tool_calls"))):
                function = as_dict(raw.get("function"))
                calls.append(call(raw.get("id") or function.get("name"), function.get("name"),
                                  function.get("arguments")))
        return calls, bounded("".join(texts))

    def results(self, request: dict[str, Any]) -> list[Result]:
        newer = after_last(as_list(request.get("messages")), lambda m: m.get("role") == "assistant")
        return [result(m.get("tool_call_id") or m.get("tool_name"), m.get("content")) for m in map(as_dict, newer)
                if m.get("role") == "tool"]

    def stream_error(self, docs: list[Doc]) -> ProviderError | None:
        for doc in values(docs):
            if doc.get("error"):
                return ProviderError(message=as_text(doc.get("error")) or str(doc.get("error"))[:200])
        return None

    def finished(self, docs: list[Doc]) -> bool:
        return any(doc.get("done") is True for doc in values(docs))
