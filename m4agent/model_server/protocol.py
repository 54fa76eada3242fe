"""The shape every wire protocol of the scripted server has, and the helpers they share."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from m4agent.model_server.answers import Answer


@dataclass
class Reply:
    """An HTTP answer: a whole body, or (``chunks``) a stream sent chunk by chunk."""

    status: int
    content_type: str = "application/json"
    body: bytes = b""
    chunks: list[bytes] | None = None
    headers: dict[str, str] = field(default_factory=dict)


def json_reply(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, body=json.dumps(payload).encode(), headers=headers or {})


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event (``event:`` line only when named)."""
    head = f"event: {event}\n" if event else ""
    text = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {text}\n\n".encode()


class Protocol:
    """One provider's wire format: which requests are its, their turn, their tools; how answers look."""

    name = "protocol"
    call_prefix = "call"

    def matches(self, method: str, path: str) -> bool:
        raise NotImplementedError

    def turn_index(self, body: dict[str, Any]) -> int:
        """How many answers of the model the request's conversation already holds."""
        raise NotImplementedError

    def tools(self, body: dict[str, Any]) -> list[tuple[str, Any]]:
        """The tools the request declares: ``(name, JSON schema of its arguments)``."""
        raise NotImplementedError

    def streaming(self, body: dict[str, Any], path: str) -> bool:
        return bool(body.get("stream"))

    def model(self, body: dict[str, Any], path: str) -> str | None:
        value = body.get("model")
        return value if isinstance(value, str) else None

    def render(self, answer: Answer, stream: bool) -> Reply:
        raise NotImplementedError

    def failure(self, kind: str, model: str) -> Reply:
        """The provider's own answer for a failure kind (``script.FAILURES`` but ``hang``) to a call of ``model``."""
        raise NotImplementedError

    def other(self, method: str, path: str, body: dict[str, Any]) -> Reply | None:
        """Requests of this provider that are not a model turn (model lists, token counts); None: not one."""
        return None


class ChatMessages(Protocol):
    """A protocol whose conversation is OpenAI's chat shape: ``messages`` with a ``role`` each, and
    ``tools`` of ``{"function": {"name", "parameters"}}`` (Chat Completions, and Ollama's ``/api/chat``)."""

    def turn_index(self, body: dict[str, Any]) -> int:
        return sum(1 for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "assistant")

    def tools(self, body: dict[str, Any]) -> list[tuple[str, Any]]:
        return [(t["function"]["name"], t["function"].get("parameters")) for t in body.get("tools", [])
                if isinstance(t, dict) and isinstance(t.get("function"), dict) and "name" in t["function"]]
