"""The Anthropic Messages API (``POST /v1/messages``), streaming (SSE) and not, as Claude Code uses it.

Usage follows the API: ``input_tokens`` is uncached input only, beside
``cache_creation_input_tokens`` and ``cache_read_input_tokens``; ``output_tokens``
includes thinking. A stream reports input and cache tokens in ``message_start`` and
the final output count in ``message_delta``.
"""

from __future__ import annotations

import json
from typing import Any

from m4agent.model_server.answers import Answer, new_id
from m4agent.model_server.protocol import Protocol, Reply, json_reply, sse


def _usage(answer: Answer, output: int) -> dict[str, Any]:
    u = answer.usage
    return {"input_tokens": u.input, "cache_creation_input_tokens": u.cache_write,
            "cache_read_input_tokens": u.cache_read, "output_tokens": output,
            "service_tier": "standard"}


class Anthropic(Protocol):
    name = "anthropic"
    call_prefix = "toolu"

    def matches(self, method: str, path: str) -> bool:
        return path.startswith("/v1/messages")

    def turn_index(self, body: dict[str, Any]) -> int:
        return sum(1 for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "assistant")

    def tools(self, body: dict[str, Any]) -> list[tuple[str, Any]]:
        return [(t["name"], t.get("input_schema")) for t in body.get("tools", []) if isinstance(t, dict) and "name" in t]

    def other(self, method: str, path: str, body: dict[str, Any]) -> Reply | None:
        if path.startswith("/v1/messages/count_tokens"):
            return json_reply({"input_tokens": len(json.dumps(body)) // 4})
        return None

    def _content(self, answer: Answer) -> list[dict[str, Any]]:
        if answer.call is not None:
            return [{"type": "tool_use", "id": answer.call.call_id, "name": answer.call.name,
                     "input": answer.call.arguments}]
        return [{"type": "text", "text": answer.text or ""}]

    def render(self, answer: Answer, stream: bool) -> Reply:
        message_id = new_id("msg")
        stop = "tool_use" if answer.is_call else "end_turn"
        if not stream:
            return json_reply({"id": message_id, "type": "message", "role": "assistant", "model": answer.model,
                               "content": self._content(answer), "stop_reason": stop, "stop_sequence": None,
                               "usage": _usage(answer, answer.usage.output)})
        start = {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": answer.model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": _usage(answer, min(1, answer.usage.output))}}
        chunks = [sse(start, "message_start"), sse({"type": "ping"}, "ping")]
        if answer.call is not None:
            block = {"type": "tool_use", "id": answer.call.call_id, "name": answer.call.name, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(answer.call.arguments)}
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": answer.text or ""}
        chunks += [
            sse({"type": "content_block_start", "index": 0, "content_block": block}, "content_block_start"),
            sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta"),
            sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
            sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                 "usage": {"output_tokens": answer.usage.output}}, "message_delta"),
            sse({"type": "message_stop"}, "message_stop"),
        ]
        return Reply(200, "text/event-stream", chunks=chunks)

    def failure(self, kind: str, model: str) -> Reply:
        kinds = {
            "rate_limit": (429, "rate_limit_error", "This request would exceed the rate limit for your organization."
                           " Please try again later."),
            "server_error": (500, "api_error", "Internal server error"),
            "invalid_key": (401, "authentication_error", "invalid x-api-key"),
            "quota": (400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API. "
                      "Please go to Plans & Billing to upgrade or purchase credits."),
            "unknown_model": (404, "not_found_error", f"model: {model}"),
        }
        status, error_type, message = kinds[kind]
        # the CLI is told not to retry, so a dry run of a failure ends in seconds (the provider says "true")
        headers = {"retry-after": "0", "x-should-retry": "false"}
        return json_reply({"type": "error", "error": {"type": error_type, "message": message},
                           "request_id": new_id("req")}, status, headers)
