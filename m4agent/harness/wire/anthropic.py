"""Anthropic Messages (``POST /v1/messages``), as Claude Code calls it, streaming or not.

Usage: ``input_tokens`` (uncached), ``cache_read_input_tokens``,
``cache_creation_input_tokens``, ``output_tokens``; no reasoning count (thinking is
inside output). A stream gives usage in ``message_start`` and again, cumulative, in
``message_delta``: the last value of each field wins.
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

_FIELDS = {"input": "input_tokens", "cache_read": "cache_read_input_tokens",
           "cache_write": "cache_creation_input_tokens", "output": "output_tokens"}


class Anthropic(Reader):
    name = "anthropic"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/").endswith("/v1/messages")

    def model(self, request: dict[str, Any], path: str, docs: list[Doc]) -> str | None:
        for value in [request, *(as_dict(d.get("message")) for d in values(docs)), *values(docs)]:
            if isinstance(value.get("model"), str):
                return value["model"]
        return None

    def usage(self, docs: list[Doc]) -> Usage:
        usage = no_usage()
        for doc in values(docs):
            raw = as_dict(doc.get("usage")) or as_dict(as_dict(doc.get("message")).get("usage"))
            for field, key in _FIELDS.items():
                if count(raw.get(key)) is not None:
                    usage[field] = count(raw.get(key))
        return usage

    def answer(self, docs: list[Doc]) -> tuple[list[Call], str]:
        blocks: dict[Any, dict[str, Any]] = {}  # index -> block, in order of arrival
        for doc in values(docs):
            kind = doc.get("type")
            index = doc.get("index") if isinstance(doc.get("index"), int) else None
            if kind == "message":
                for number, block in enumerate(as_list(doc.get("content"))):
                    blocks[number] = dict(as_dict(block))
            elif kind == "content_block_start" and isinstance(doc.get("content_block"), dict):
                blocks[index] = {**doc["content_block"], "_json": []}
            elif kind == "content_block_delta":
                block = blocks.setdefault(index, {"_json": []})
                delta = as_dict(doc.get("delta"))
                if delta.get("type") == "text_delta":
                    block["text"] = as_text(block.get("text")) + as_text(delta.get("text"))
                elif delta.get("type") == "input_json_delta":
                    block.setdefault("_json", []).append(as_text(delta.get("partial_json")))
        calls, texts = [], []
        for block in blocks.values():
            if block.get("type") in ("tool_use", "server_tool_use"):
                pieces = "".join(block.get("_json") or [])
                calls.append(call(block.get("id"), block.get("name"), pieces or block.get("input")))
            elif block.get("type") == "text":
                texts.append(as_text(block.get("text")))
        return calls, bounded("".join(texts))

    def results(self, request: dict[str, Any]) -> list[Result]:
        found = []
        for message in after_last(as_list(request.get("messages")), lambda m: m.get("role") == "assistant"):
            for block in as_list(as_dict(message).get("content")):
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append(result(block.get("tool_use_id"), block.get("content")))
        return found

    def stream_error(self, docs: list[Doc]) -> ProviderError | None:
        for event, doc in docs:
            if isinstance(doc, dict) and (event == "error" or doc.get("type") == "error"):
                error = as_dict(doc.get("error"))
                return ProviderError(as_text(error.get("type")), as_text(error.get("message")))
        return None

    def finished(self, docs: list[Doc]) -> bool:
        return any(doc.get("type") in ("message_stop", "message") for doc in values(docs))
