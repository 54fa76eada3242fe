"""OpenAI's Responses API (``POST /v1/responses``, Codex) and Chat Completions (``/v1/chat/completions``:
OpenAI-compatible endpoints, Ollama's ``/v1`` and pi's local models), streaming and not.

Usage follows the API: ``input_tokens``/``prompt_tokens`` include the cached part
(``cached_tokens``), ``output_tokens``/``completion_tokens`` include reasoning
(``reasoning_tokens``). OpenAI reports no cache writes.
"""

from __future__ import annotations

import json
import time
from typing import Any

from m4agent.model_server.answers import Answer, new_id
from m4agent.model_server.protocol import ChatMessages, Protocol, Reply, json_reply, sse


def _openai_error(kind: str, model: str) -> Reply:
    kinds = {
        "rate_limit": (429, "Rate limit reached for requests per min (RPM). Please try again in 1s.",
                       "requests", "rate_limit_exceeded"),
        "server_error": (500, "The server had an error while processing your request. Sorry about that!",
                         "server_error", None),
        "invalid_key": (401, "Incorrect API key provided: sk-****. You can find your API key at "
                        "https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key"),
        "quota": (429, "You exceeded your current quota, please check your plan and billing details.",
                  "insufficient_quota", "insufficient_quota"),
        "unknown_model": (404, f"The model `{model}` does not exist or you do not have access to it.",
                          "invalid_request_error", "model_not_found"),
    }
    status, message, error_type, code = kinds[kind]
    headers = {"retry-after": "0"} if kind == "rate_limit" else {}
    return json_reply({"error": {"message": message, "type": error_type, "param": None, "code": code}},
                      status, headers)


def _models(model: str) -> Reply:
    return json_reply({"object": "list", "data": [{"id": model, "object": "model", "created": 0,
                                                   "owned_by": "m4agent"}]})


class Responses(Protocol):
    name = "openai-responses"
    call_prefix = "call"

    def matches(self, method: str, path: str) -> bool:
        return path.startswith("/v1/responses") or path.startswith("/responses")

    def turn_index(self, body: dict[str, Any]) -> int:
        items = body.get("input", [])
        if not isinstance(items, list):
            return 0
        count = 0
        for item in items:
            if not isinstance(item, dict):
                continue
            if item.get("type") in ("function_call", "local_shell_call", "custom_tool_call"):
                count += 1
            elif item.get("type", "message") == "message" and item.get("role") == "assistant":
                count += 1
        return count

    def tools(self, body: dict[str, Any]) -> list[tuple[str, Any]]:
        found = []
        for tool in body.get("tools", []):
            if not isinstance(tool, dict):
                continue
            if tool.get("type") == "function" and "name" in tool:
                found.append((tool["name"], tool.get("parameters")))
            elif tool.get("type") == "local_shell":
                found.append(("local_shell", None))
        return found

    def _usage(self, answer: Answer) -> dict[str, Any]:
        u = answer.usage
        return {"input_tokens": u.input + u.cache_read, "input_tokens_details": {"cached_tokens": u.cache_read},
                "output_tokens": u.output, "output_tokens_details": {"reasoning_tokens": u.reasoning},
                "total_tokens": u.input + u.cache_read + u.output}

    def _item(self, answer: Answer) -> dict[str, Any]:
        if answer.call is not None:
            if answer.call.name == "local_shell":
                return {"type": "local_shell_call", "id": new_id("lsh"), "call_id": answer.call.call_id,
                        "status": "completed", "action": {"type": "exec", **answer.call.arguments}}
            return {"type": "function_call", "id": new_id("fc"), "call_id": answer.call.call_id,
                    "name": answer.call.name, "arguments": json.dumps(answer.call.arguments), "status": "completed"}
        return {"type": "message", "id": new_id("msg"), "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": answer.text or "", "annotations": []}]}

    def render(self, answer: Answer, stream: bool) -> Reply:
        response_id = new_id("resp")
        item = self._item(answer)
        response = {"id": response_id, "object": "response", "created_at": int(time.time()), "status": "completed",
                    "model": answer.model, "output": [item], "usage": self._usage(answer)}
        if not stream:
            return json_reply(response)
        pending = {**response, "status": "in_progress", "output": [], "usage": None}
        chunks = [sse({"type": "response.created", "response": pending}, "response.created"),
                  sse({"type": "response.in_progress", "response": pending}, "response.in_progress"),
                  sse({"type": "response.output_item.added", "output_index": 0,
                       "item": {**item, "status": "in_progress"}}, "response.output_item.added")]
        if answer.call is None:
            chunks.append(sse({"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0,
                               "content_index": 0, "delta": answer.text or ""}, "response.output_text.delta"))
        chunks += [sse({"type": "response.output_item.done", "output_index": 0, "item": item},
                       "response.output_item.done"),
                   sse({"type": "response.completed", "response": response}, "response.completed")]
        return Reply(200, "text/event-stream", chunks=chunks)

    def failure(self, kind: str, model: str) -> Reply:
        return _openai_error(kind, model)

    def other(self, method: str, path: str, body: dict[str, Any]) -> Reply | None:
        if method == "GET":  # the Responses API over WebSocket (Codex tries it first): not served
            return json_reply({"error": {"message": "WebSocket transport is not served by the scripted model "
                                         "server; use HTTP", "type": "invalid_request_error",
                                         "code": "websocket_unsupported"}}, 426)
        return None


class ChatCompletions(ChatMessages):
    name = "openai-chat"
    call_prefix = "call"

    def matches(self, method: str, path: str) -> bool:
        return path.startswith("/v1/chat/completions") or path.startswith("/chat/completions") or \
            (method == "GET" and path.rstrip("/") in ("/v1/models", "/models"))

    def other(self, method: str, path: str, body: dict[str, Any]) -> Reply | None:
        if method == "GET":
            return _models("scripted-model")
        return None

    def usage(self, answer: Answer) -> dict[str, Any]:
        u = answer.usage
        return {"prompt_tokens": u.input + u.cache_read, "completion_tokens": u.output,
                "total_tokens": u.input + u.cache_read + u.output,
                "prompt_tokens_details": {"cached_tokens": u.cache_read},
                "completion_tokens_details": {"reasoning_tokens": u.reasoning}}

    def render(self, answer: Answer, stream: bool) -> Reply:
        completion_id = new_id("chatcmpl")
        created = int(time.time())
        finish = "tool_calls" if answer.is_call else "stop"
        calls = None
        if answer.call is not None:
            calls = [{"id": answer.call.call_id, "type": "function",
                      "function": {"name": answer.call.name, "arguments": json.dumps(answer.call.arguments)}}]
        base = {"id": completion_id, "created": created, "model": answer.model}
        if not stream:
            message: dict[str, Any] = {"role": "assistant", "content": None if calls else (answer.text or "")}
            if calls:
                message["tool_calls"] = calls
            return json_reply({**base, "object": "chat.completion", "usage": self.usage(answer),
                               "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
        chunk = {**base, "object": "chat.completion.chunk"}
        delta: dict[str, Any] = {"role": "assistant"}
        if calls:
            delta["tool_calls"] = [{"index": 0, **calls[0]}]
        else:
            delta["content"] = answer.text or ""
        chunks = [sse({**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
                  sse({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
                  sse({**chunk, "choices": [], "usage": self.usage(answer)}),
                  sse("[DONE]")]
        return Reply(200, "text/event-stream", chunks=chunks)

    def failure(self, kind: str, model: str) -> Reply:
        return _openai_error(kind, model)
