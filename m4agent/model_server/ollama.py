"""Ollama's native API (``POST /api/chat``, newline-delimited JSON when streaming, the default), with
``/api/tags``, ``/api/show`` and ``/api/version`` so clients that look around first find a model.

Ollama reports ``prompt_eval_count`` and ``eval_count`` and has no cache or reasoning counts.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from m4agent.model_server.answers import Answer
from m4agent.model_server.protocol import ChatMessages, Reply, json_reply

OLLAMA_PATHS = ("/api/chat", "/api/tags", "/api/show", "/api/version")


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class Ollama(ChatMessages):
    name = "ollama"
    call_prefix = "call"

    def matches(self, method: str, path: str) -> bool:
        return path.split("?")[0] in OLLAMA_PATHS

    def streaming(self, body: dict[str, Any], path: str) -> bool:
        return body.get("stream", True) is not False

    def other(self, method: str, path: str, body: dict[str, Any]) -> Reply | None:
        if path.startswith("/api/chat"):
            return None
        if path.startswith("/api/version"):
            return json_reply({"version": "0.0.0-m4agent"})
        if path.startswith("/api/tags"):
            return json_reply({"models": [{"name": "scripted-model", "model": "scripted-model",
                                           "modified_at": _now(), "size": 0, "digest": "0" * 64}]})
        if path.startswith("/api/show"):
            return json_reply({"modelfile": "", "parameters": "", "template": "", "capabilities": ["completion", "tools"],
                               "model_info": {"general.context_length": 131072}})
        return None

    def render(self, answer: Answer, stream: bool) -> Reply:
        message: dict[str, Any] = {"role": "assistant", "content": "" if answer.is_call else (answer.text or "")}
        if answer.call is not None:
            message["tool_calls"] = [{"function": {"name": answer.call.name, "arguments": answer.call.arguments}}]
        final = {"model": answer.model, "created_at": _now(), "done": True, "done_reason": "stop",
                 "prompt_eval_count": answer.usage.input + answer.usage.cache_read,
                 "eval_count": answer.usage.output, "total_duration": 1, "eval_duration": 1}
        if not stream:
            return json_reply({**final, "message": message})
        chunks = [(json.dumps({"model": answer.model, "created_at": _now(), "message": message, "done": False})
                   + "\n").encode(),
                  (json.dumps({**final, "message": {"role": "assistant", "content": ""}}) + "\n").encode()]
        return Reply(200, "application/x-ndjson", chunks=chunks)

    def failure(self, kind: str, model: str) -> Reply:
        kinds = {"rate_limit": (429, "too many requests"), "server_error": (500, "llama runner process has terminated"),
                 "invalid_key": (401, "unauthorized"), "quota": (429, "quota exceeded"),
                 "unknown_model": (404, f"model '{model}' not found")}
        status, message = kinds[kind]
        return json_reply({"error": message}, status)
