"""Gemini (``/v1beta/models/M:generateContent`` and ``:streamGenerateContent``), and Code Assist
(``/v1internal:generateContent``, Gemini CLI with a Google login), which wraps the same
request in ``{"model", "project", "request"}`` and each answer in ``{"response": ...}``.

A call without an id (the Gemini API sends none) takes its tool's name as id, as its
``functionResponse`` does. Usage from ``usageMetadata`` (the last one of a stream): ``promptTokenCount`` includes
``cachedContentTokenCount``; output is ``candidatesTokenCount`` plus
``thoughtsTokenCount``, reasoning the thoughts. Gemini leaves zero counts out, so inside
a present ``usageMetadata`` an absent count is 0; tool-use prompt tokens
(``toolUsePromptTokenCount``, built-in tools) are billed as input and added to it. No
cache writes are reported.
"""

from __future__ import annotations

import re
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

_CALL = re.compile(r"(?:/models/(?P<model>[^/:]+)|/v1internal):(?:generateContent|streamGenerateContent)$")


def _answers(docs: list[Doc]) -> list[dict[str, Any]]:
    """Each document's Gemini answer (Code Assist's ``response`` unwrapped)."""
    return [as_dict(d["response"]) if isinstance(d.get("response"), dict) else d for d in values(docs)]


def _zero(value: Any) -> int | None:
    return 0 if value is None else count(value)


class Gemini(Reader):
    name = "gemini"

    def matches(self, method: str, path: str) -> bool:
        return method == "POST" and _CALL.search(path) is not None

    def conversation(self, request: dict[str, Any]) -> dict[str, Any]:
        return as_dict(request.get("request")) if "request" in request and "contents" not in request else request

    def streaming(self, request: dict[str, Any], path: str) -> bool:
        return path.endswith(":streamGenerateContent")

    def model(self, request: dict[str, Any], path: str, docs: list[Doc]) -> str | None:
        found = _CALL.search(path)
        if found and found.group("model"):
            return found.group("model")
        if isinstance(request.get("model"), str):
            return request["model"]
        return next((a["modelVersion"] for a in _answers(docs) if isinstance(a.get("modelVersion"), str)), None)

    def usage(self, docs: list[Doc]) -> Usage:
        usage = no_usage()
        for answer in _answers(docs):
            raw = answer.get("usageMetadata")
            if not isinstance(raw, dict):
                continue
            prompt, cached = _zero(raw.get("promptTokenCount")), _zero(raw.get("cachedContentTokenCount"))
            tool_prompt = _zero(raw.get("toolUsePromptTokenCount"))
            candidates, thoughts = _zero(raw.get("candidatesTokenCount")), _zero(raw.get("thoughtsTokenCount"))
            uncached = None if prompt is None or tool_prompt is None else max(0, prompt - (cached or 0)) + tool_prompt
            usage = {"input": uncached, "cache_read": cached, "cache_write": None,
                     "output": None if candidates is None or thoughts is None else candidates + thoughts,
                     "reasoning": thoughts}
        return usage

    def answer(self, docs: list[Doc]) -> tuple[list[Call], str]:
        calls, texts = [], []
        for answer in _answers(docs):
            candidate = as_dict(next(iter(as_list(answer.get("candidates"))), None))
            for part in map(as_dict, as_list(as_dict(candidate.get("content")).get("parts"))):
                if isinstance(part.get("functionCall"), dict):
                    function = part["functionCall"]
                    calls.append(call(function.get("id") or function.get("name"), function.get("name"),
                                      function.get("args")))
                elif isinstance(part.get("text"), str) and not part.get("thought"):
                    texts.append(part["text"])
        return calls, bounded("".join(texts))

    def results(self, request: dict[str, Any]) -> list[Result]:
        newer = after_last(as_list(request.get("contents")), lambda c: c.get("role") == "model")
        found = []
        for content in map(as_dict, newer):
            for part in map(as_dict, as_list(content.get("parts"))):
                response = part.get("functionResponse")
                if isinstance(response, dict):
                    body = as_dict(response.get("response"))
                    output = body.get("output", body.get("error", body or None))
                    found.append(result(response.get("id") or response.get("name"), output))
        return found

    def stream_error(self, docs: list[Doc]) -> ProviderError | None:
        for doc in values(docs):
            if isinstance(doc.get("error"), dict):
                return gemini_error(doc["error"])
        return None

    def finished(self, docs: list[Doc]) -> bool:
        """A candidate's ``finishReason``, or a prompt refused whole (``promptFeedback``, no candidates)."""
        return any(as_dict(next(iter(as_list(a.get("candidates"))), None)).get("finishReason")
                   or as_dict(a.get("promptFeedback")).get("blockReason") for a in _answers(docs))


def gemini_error(error: dict[str, Any]) -> ProviderError:
    """Google's error shape: ``status``, ``message`` and ``details`` (ErrorInfo reason, QuotaFailure ids)."""
    reasons = []
    for detail in map(as_dict, as_list(error.get("details"))):
        kind = as_text(detail.get("@type")).rsplit(".", 1)[-1]
        if detail.get("reason"):
            reasons.append(as_text(detail.get("reason")))
        if kind == "QuotaFailure":
            reasons += ["QuotaFailure:" + as_text(as_dict(v).get("quotaId"))
                        for v in as_list(detail.get("violations"))] or ["QuotaFailure:"]
    return ProviderError(as_text(error.get("status")) or str(count(error.get("code")) or ""),
                         as_text(error.get("message")), tuple(reasons[:20]))
