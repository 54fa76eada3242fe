"""The Gemini API (``/v1beta/models/M:generateContent`` and ``:streamGenerateContent?alt=sse``), as
Gemini CLI uses it with an API key.

Usage follows the API: ``promptTokenCount`` includes ``cachedContentTokenCount``;
``candidatesTokenCount`` excludes thinking, reported apart as ``thoughtsTokenCount``.
Gemini CLI also asks side questions with a JSON response schema (who speaks next,
which model to route to); those get a valid JSON answer and no usage.
"""

from __future__ import annotations

import json
import re
from typing import Any

from m4agent.model_server.answers import Answer
from m4agent.model_server.protocol import Protocol, Reply, json_reply, sse

_MODEL_RE = re.compile(r"/models/([^/:]+):")


def _json_side_answer(body: dict[str, Any]) -> str | None:
    """A JSON answer for Gemini CLI's structured side requests, or None for a model turn."""
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if not schema and config.get("responseMimeType") != "application/json":
        return None
    props = (schema or {}).get("properties", {}) if isinstance(schema, dict) else {}
    answer: dict[str, Any] = {}
    for name, spec in props.items():
        enum = spec.get("enum") if isinstance(spec, dict) else None
        if name == "next_speaker":
            answer[name] = "user"
        elif enum:
            answer[name] = enum[0]
        elif isinstance(spec, dict) and spec.get("type") in ("number", "integer"):
            answer[name] = 0
        elif isinstance(spec, dict) and spec.get("type") == "boolean":
            answer[name] = False
        else:
            answer[name] = "scripted"
    return json.dumps(answer)


class Gemini(Protocol):
    name = "gemini"
    call_prefix = "call"

    def matches(self, method: str, path: str) -> bool:
        return "/models/" in path and (":generateContent" in path or ":streamGenerateContent" in path
                                       or ":countTokens" in path)

    def streaming(self, body: dict[str, Any], path: str) -> bool:
        return ":streamGenerateContent" in path

    def model(self, body: dict[str, Any], path: str) -> str | None:
        found = _MODEL_RE.search(path)
        return found.group(1) if found else None

    def turn_index(self, body: dict[str, Any]) -> int:
        return sum(1 for c in body.get("contents", []) if isinstance(c, dict) and c.get("role") == "model")

    def tools(self, body: dict[str, Any]) -> list[tuple[str, Any]]:
        if _json_side_answer(body) is not None:
            return []
        found = []
        for tool in body.get("tools", []):
            for decl in (tool.get("functionDeclarations") or []) if isinstance(tool, dict) else []:
                if isinstance(decl, dict) and "name" in decl:
                    found.append((decl["name"], decl.get("parametersJsonSchema") or decl.get("parameters")))
        return found

    def other(self, method: str, path: str, body: dict[str, Any]) -> Reply | None:
        if ":countTokens" in path:
            return json_reply({"totalTokens": len(json.dumps(body)) // 4})
        side = _json_side_answer(body)
        if side is not None:
            payload = {"candidates": [{"content": {"role": "model", "parts": [{"text": side}]},
                                       "finishReason": "STOP", "index": 0}],
                       "usageMetadata": {"promptTokenCount": 0, "candidatesTokenCount": 0, "totalTokenCount": 0}}
            if ":streamGenerateContent" in path:
                return Reply(200, "text/event-stream", chunks=[sse(payload)])
            return json_reply(payload)
        return None

    def _usage(self, answer: Answer) -> dict[str, Any]:
        u = answer.usage
        usage = {"promptTokenCount": u.input + u.cache_read, "candidatesTokenCount": u.output - u.reasoning,
                 "totalTokenCount": u.input + u.cache_read + u.output}
        if u.cache_read:
            usage["cachedContentTokenCount"] = u.cache_read
        if u.reasoning:
            usage["thoughtsTokenCount"] = u.reasoning
        return usage

    def render(self, answer: Answer, stream: bool) -> Reply:
        if answer.call is not None:
            part: dict[str, Any] = {"functionCall": {"name": answer.call.name, "args": answer.call.arguments,
                                                     "id": answer.call.call_id}}
        else:
            part = {"text": answer.text or ""}
        payload = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                                   "index": 0}],
                   "usageMetadata": self._usage(answer), "modelVersion": answer.model}
        if not stream:
            return json_reply(payload)
        return Reply(200, "text/event-stream", chunks=[sse(payload)])

    def failure(self, kind: str, model: str) -> Reply:
        kinds = {
            "rate_limit": (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", []),
            "server_error": (500, "INTERNAL", "An internal error has occurred. Please retry or report.", []),
            "invalid_key": (400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
                            [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                              "domain": "googleapis.com"}]),
            "quota": (429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and "
                      "billing details.",
                      [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
                          {"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                           "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]),
            "unknown_model": (404, "NOT_FOUND", f"models/{model} is not found for API version v1beta, or is not "
                              "supported for generateContent. Call ListModels to see the list of available models "
                              "and their supported methods.", []),
        }
        status, code, message, details = kinds[kind]
        return json_reply({"error": {"code": status, "message": message, "status": code, "details": details}},
                          status)
