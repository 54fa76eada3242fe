"""The metered tunnel: HTTP/1.1 exchanges relayed between an agent's CLI and its provider, each one recorded.

When the egress proxy allows a tunnel to a provider host and metering is on, it ends
the CLI's TLS with a certificate of the campaign's CA (``certs``), opens its own TLS
connection to the provider (or to the route's address), and hands both streams to
``serve``. ``serve`` reads one request at a time from the CLI, forwards it (asking the
provider for an uncompressed answer, so the meter can read it), relays the answer back
as it arrives, and gives each finished exchange, bytes as they crossed, to the
``Meter`` (``Meter.record``). The meter, not the CLI's output, is what the harness
counts: tokens, cost, the provider's failures and the model's steps.

What the proxy answers itself, without forwarding:

- a WebSocket upgrade (Codex tries the Responses API over one first): ``426``, so the
  CLI falls back to HTTP, where every exchange can be read;
- a request the meter refuses (``Meter.refusal``: the run's budget is spent): ``402``
  with the reason and ``x-should-retry: false``, an answer no CLI retries, so it stops.

Both are recorded as exchanges answered ``by_proxy``. A request that is not HTTP/1.1 as
RFC 9112 frames it ends the tunnel (``AgentFramingError``: the proxy cannot read what
it asked for, so the caller fails closed); an answer that is not ends the exchange with
no status (``no_answer``), which is the provider's side. An answer cut because the CLI's
side closed is recorded with ``agent_closed``: the agent cut it, so it is never a provider
failure (else an agent could turn a losing attempt into a retried one by closing mid-stream).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from m4agent.harness.wire import http1
from m4agent.harness.wire.exchange import Exchange

AGENT_CLOSED = "agent closed mid-answer"


class AgentFramingError(Exception):
    """The agent's side sent something that is not an HTTP/1.1 request."""


@dataclass
class Meter:
    """Where exchanges go: ``record(exchange, facts)`` on the proxy's thread, ``refusal(exchange)`` before
    forwarding (a reason to answer 402 instead, or None)."""

    record: Callable[[Exchange, dict], None]
    refusal: Callable[[Exchange], str | None] = lambda exchange: None


@dataclass
class Tally:
    """What a metered tunnel carried, for its close line."""

    bytes_up: int = 0
    bytes_down: int = 0
    exchanges: int = 0


class _Sink:
    """A writer that drops what it is given (the body of a request the proxy answers itself)."""

    def write(self, data: bytes) -> None:
        pass

    async def drain(self) -> None:
        pass


def _local_answer(status: int, reason: str, payload: dict, extra: str = "") -> bytes:
    body = json.dumps(payload).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"{extra}Connection: keep-alive\r\n\r\n")
    return head.encode("ascii") + body


UPGRADE_REFUSED = _local_answer(426, "Upgrade Required", {"error": {
    "type": "invalid_request_error", "code": "websocket_unsupported",
    "message": "m4agent metering proxy: WebSocket is not relayed; use HTTP"}})


def _budget_answer(reason: str) -> bytes:
    return _local_answer(402, "Payment Required", {"type": "error", "error": {
        "type": "m4agent_budget", "code": "m4agent_budget", "message": f"m4agent metering proxy: {reason}"}},
        "x-should-retry: false\r\n")


async def serve(client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
                upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter], host: str, meter: Meter,
                tally: Tally, *, idle_timeout: float, pool: http1.CapturePool | None = None) -> str:
    """Relay exchanges until either side ends; returns why the tunnel ended (for its close line).

    Raises ``AgentFramingError`` when the agent's side breaks HTTP/1.1 framing."""
    reader, writer = client
    up_reader, up_writer = upstream
    while True:
        try:
            raw = await http1.read_head(reader, idle_timeout)
        except TimeoutError:
            return "idle timeout"
        except http1.FramingError as exc:
            raise AgentFramingError(str(exc)) from None
        if raw is None:
            return "closed"
        try:
            head = http1.parse_head(raw, request=True)
            framing = http1.request_framing(head)
        except http1.FramingError as exc:
            raise AgentFramingError(str(exc)) from None
        method, target, _ = head.first
        path, _, query = target.partition("?")
        started, wall = time.monotonic(), time.time()
        tally.bytes_up += len(raw) + 4
        if head.get("upgrade") is not None:
            await _answer_locally(writer, UPGRADE_REFUSED, meter, tally,
                                  _exchange(host, head, path, query, b"", 426), started, wall)
            continue
        request_body = http1.Capture(pool=pool)
        reason = meter.refusal(_exchange(host, head, path, query, b"", None))
        if reason is not None:  # the body is read and dropped, then the proxy answers
            try:
                await http1.relay_body(reader, _Sink(), framing, request_body, idle_timeout)
            except (http1.FramingError, TimeoutError) as exc:
                raise AgentFramingError(f"request body: {exc}") from None
            tally.bytes_up += request_body.total
            await _answer_locally(writer, _budget_answer(reason), meter, tally,
                                  _exchange(host, head, path, query, request_body, 402), started, wall)
            request_body.release()
            continue
        up_writer.write(head.replacing("accept-encoding", "identity").encode())
        try:
            await http1.relay_body(reader, up_writer, framing, request_body, idle_timeout)
            await up_writer.drain()
        except (http1.FramingError, TimeoutError) as exc:
            raise AgentFramingError(f"request body: {exc}") from None
        tally.bytes_up += request_body.total
        try:
            exchange, why = await _answer(up_reader, writer, host, head, path, query, request_body, tally,
                                          idle_timeout)
        finally:
            request_body.release()
        _record(meter, tally, exchange, started, wall, by_proxy=False, agent_closed=why == AGENT_CLOSED)
        if why is not None:
            return why


async def _answer(up_reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, head: http1.Head,
                  path: str, query: str, request_body: http1.Capture, tally: Tally,
                  idle_timeout: float) -> tuple[Exchange, str | None]:
    """Relay the provider's answer; the exchange, and why the tunnel ends after it (None: it goes on)."""
    method = head.first[0]
    response_body = http1.Capture()  # the provider's bytes: never starved by what the agent sends
    response: http1.Head | None = None
    why: str | None = None
    try:
        while True:  # informational answers (100 Continue) are relayed, then the real one comes
            raw = await http1.read_head(up_reader, idle_timeout)
            if raw is None:
                return _exchange(host, head, path, query, request_body, None), "upstream closed"
            response = http1.parse_head(raw, request=False)
            writer.write(raw + b"\r\n\r\n")
            tally.bytes_down += len(raw) + 4
            if not (100 <= int(response.first[1]) < 200) or response.first[1] == "101":
                break
        if response.first[1] == "101":  # never asked for (upgrades are refused): nothing more can be read
            return _exchange(host, head, path, query, request_body, 101, response), "upgraded"
        framing = http1.response_framing(response, method)
        await http1.relay_body(up_reader, writer, framing, response_body, idle_timeout)
        await writer.drain()
        if framing[0] == "close":
            why = "upstream closed"
        elif "close" in response.tokens("connection") or "close" in head.tokens("connection"):
            why = "closed"
    except TimeoutError:
        why = "idle timeout"
    except http1.FramingError:
        why = "upstream framing"
    except OSError:
        why = "reset"
    finally:
        tally.bytes_down += response_body.total
    if why not in (None, "closed") and writer.is_closing():
        why = AGENT_CLOSED  # the CLI's side went away mid-answer: the answer is cut by the agent, not the provider
    status = int(response.first[1]) if response is not None else None  # a cut answer keeps its status
    return _exchange(host, head, path, query, request_body, status, response, response_body), why


def _exchange(host: str, head: http1.Head, path: str, query: str, request_body: http1.Capture | bytes,
              status: int | None, response: http1.Head | None = None,
              response_body: http1.Capture | None = None) -> Exchange:
    body = bytes(request_body.data) if isinstance(request_body, http1.Capture) else request_body
    truncated = (isinstance(request_body, http1.Capture) and request_body.truncated) or \
        (response_body is not None and response_body.truncated)
    return Exchange(host=host, method=head.first[0], path=path, query=query, request_headers=head.headers,
                    request_body=body, status=status,
                    response_headers=response.headers if response is not None else (),
                    response_body=bytes(response_body.data) if response_body is not None else b"",
                    truncated=truncated)


async def _answer_locally(writer: asyncio.StreamWriter, answer: bytes, meter: Meter, tally: Tally,
                          exchange: Exchange, started: float, wall: float) -> None:
    writer.write(answer)
    await writer.drain()
    tally.bytes_down += len(answer)
    _record(meter, tally, exchange, started, wall, by_proxy=True)


def _record(meter: Meter, tally: Tally, exchange: Exchange, started: float, wall: float, *, by_proxy: bool,
            agent_closed: bool = False) -> None:
    tally.exchanges += 1
    meter.record(exchange, {"started": wall, "duration_s": round(time.monotonic() - started, 3),
                            "by_proxy": by_proxy, "agent_closed": agent_closed})
