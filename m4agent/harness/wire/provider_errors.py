"""The provider's failure class, from the status and the provider's own error body.

Classes: ``invalid_key``, ``quota`` (out of money or of a long-term quota: retrying
soon does not help), ``rate_limit`` (other 429s), ``server_error`` (5xx, Anthropic's
529 overloaded, an error inside a 200 stream), ``unknown_model``, ``bad_request``
(other 4xx), ``no_answer`` (no response at all). The provider's words decide where the
status alone would mislead: OpenAI's exhausted quota and Gemini's daily quota are
429s like a rate limit, Anthropic's empty credit balance is a 400, Gemini's bad key a
400 ``API_KEY_INVALID``. Gemini sends a ``QuotaFailure`` with per-minute limits too:
only a quota id that is not per minute or per second counts as ``quota``.
"""

from __future__ import annotations

from typing import Any

from m4agent.harness.wire.decode import Doc
from m4agent.harness.wire.gemini import gemini_error
from m4agent.harness.wire.reader import ProviderError, as_dict, as_text, values

CLASSES = ("invalid_key", "quota", "rate_limit", "server_error", "unknown_model", "bad_request", "no_answer")
MAX_DETAIL = 200

_QUOTA_CODES = {"insufficient_quota", "billing_hard_limit_reached", "billing_not_active"}
_KEY_CODES = {"invalid_api_key", "authentication_error", "permission_error", "unauthenticated", "API_KEY_INVALID",
              "UNAUTHENTICATED", "PERMISSION_DENIED"}
_RATE_CODES = {"rate_limit_error", "rate_limit_exceeded", "RESOURCE_EXHAUSTED"}
_SERVER_CODES = {"api_error", "overloaded_error", "server_error", "INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED"}


def provider_error(docs: list[Doc]) -> ProviderError | None:
    """The error an error body holds, in any provider's shape; None when it holds none."""
    for doc in values(docs):
        error = doc.get("error")
        if isinstance(error, str):  # Ollama: {"error": "..."}
            return ProviderError(message=error)
        error = as_dict(error)
        if not error:
            continue
        if "status" in error or "details" in error:  # Google
            return gemini_error(error)
        return ProviderError(as_text(error.get("code")) or as_text(error.get("type")), as_text(error.get("message")))
    return None


def _is_quota(error: ProviderError) -> bool:
    if error.kind in _QUOTA_CODES or "credit balance is too low" in error.message.lower():
        return True
    quota_ids = [r.split(":", 1)[1] for r in error.reasons if r.startswith("QuotaFailure:")]
    if quota_ids and not all("PerMinute" in q or "PerSecond" in q for q in quota_ids if q):
        return True
    return not error.kind and "quota" in error.message.lower()  # Ollama's bare message


def _by_words(error: ProviderError, status: int) -> str | None:
    if _is_quota(error):
        return "quota"
    if error.kind in _KEY_CODES or "API_KEY_INVALID" in error.reasons:
        return "invalid_key"
    if error.kind == "model_not_found" or (status == 404 and "model" in error.message.lower()):
        return "unknown_model"
    if error.kind in _RATE_CODES:
        return "rate_limit"
    if error.kind in _SERVER_CODES:
        return "server_error"
    return None


def classify(status: int | None, error: ProviderError | None) -> str | None:
    """The failure class of an answer with ``status`` and the provider's ``error`` (None: no failure)."""
    if status is None:
        return "no_answer"
    words = _by_words(error, status) if error is not None else None
    if 200 <= status < 300:
        return None if error is None else words or "server_error"
    if words is not None and status >= 400:
        return words
    if status in (401, 403):
        return "invalid_key"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server_error"
    return "bad_request" if status >= 400 else None


def detail(error: ProviderError | None, fallback: str = "") -> str | None:
    """The provider's type/code and message in at most ``MAX_DETAIL`` characters (None: nothing to say)."""
    if error is None:
        return fallback[:MAX_DETAIL] or None
    words = ": ".join(part for part in (error.kind, error.message) if part)
    if error.reasons:
        words += f" [{', '.join(error.reasons)}]"
    return (words or fallback)[:MAX_DETAIL] or None


def scrub(text: str | None, secrets: Any) -> str | None:
    """``text`` with every value of ``secrets`` (request header values, query values) replaced."""
    if text is None:
        return None
    for value in sorted(secrets, key=len, reverse=True):
        if len(value) >= 8:
            text = text.replace(value, "[redacted]")
    return text
