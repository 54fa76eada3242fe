"""The metering proxy over real sockets: the CLI's TLS ended with the campaign CA, each HTTP/1.1 exchange
relayed to the scripted model server (over real TLS) and handed to the meter as it crossed the wire."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from m4agent.harness.egress import EgressPolicy, EgressProxy, Metering, policy_for
from m4agent.harness.wire.certs import MeteringCA, upstream_context
from m4agent.harness.wire.exchange import Exchange
from m4agent.harness.wire.intercept import Meter
from m4agent.model_server import ScriptedModelServer, make_certificates, parse_script

HOST = "api.anthropic.com"
SCRIPT = {"model": "scripted", "turns": [{"text": "done", "usage": {"input": 5, "output": 7}}]}
MESSAGE = {"model": "claude-x", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}],
           "tools": [{"name": "Bash", "input_schema": {"type": "object",
                                                       "properties": {"command": {"type": "string"}}}}]}


class Seen:
    """What the meter was given, and what it refuses."""

    def __init__(self) -> None:
        self.exchanges: list[tuple[Exchange, dict[str, Any]]] = []
        self.refuse_with: str | None = None

    def meter(self) -> Meter:
        return Meter(record=lambda exchange, facts: self.exchanges.append((exchange, facts)),
                     refusal=lambda exchange: self.refuse_with)


@pytest.fixture
def short_dir() -> Iterator[Path]:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="m4m", dir="/tmp") as folder:
        yield Path(folder)


@pytest.fixture
def server(short_dir: Path) -> Iterator[ScriptedModelServer]:
    certs = make_certificates(short_dir / "certs", [HOST])
    with ScriptedModelServer(parse_script(SCRIPT), certificates=certs) as running:
        running.ca = certs.ca  # type: ignore[attr-defined]
        yield running


@pytest.fixture
def ca(short_dir: Path) -> MeteringCA:
    return MeteringCA(short_dir / "metering-ca")


def _proxy(short_dir: Path, server: ScriptedModelServer, ca: MeteringCA, seen: Seen,
           policy: EgressPolicy | None = None, upstream_ca: Path | None = None, **options: Any) -> EgressProxy:
    policy = policy or policy_for([], routes=[(HOST, "127.0.0.1", server.port)])
    trusted = upstream_ca if upstream_ca is not None else server.ca  # type: ignore[attr-defined]
    metering = Metering(ca, upstream_context(trusted), seen.meter())
    return EgressProxy(short_dir / "p.sock", policy, short_dir / "egress.jsonl", metering=metering, **options)


def _tunnel(short_dir: Path, host: str = HOST) -> tuple[socket.socket, bytes]:
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(10)
    sock.connect(str(short_dir / "p.sock"))
    sock.sendall(f"CONNECT {host}:443 HTTP/1.1\r\nHost: {host}:443\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        piece = sock.recv(4096)
        if not piece:
            break
        answer += piece
    return sock, answer


def _client(short_dir: Path, ca: MeteringCA) -> http.client.HTTPSConnection:
    sock, answer = _tunnel(short_dir)
    assert answer.startswith(b"HTTP/1.1 200"), answer
    tls = ssl.create_default_context(cafile=str(ca.ca_file)).wrap_socket(sock, server_hostname=HOST)
    conn = http.client.HTTPSConnection(HOST, timeout=10)
    conn.sock = tls
    return conn


def _post(conn: http.client.HTTPSConnection, body: dict[str, Any], headers: dict[str, str] | None = None
          ) -> tuple[int, bytes, http.client.HTTPResponse]:
    conn.request("POST", "/v1/messages", json.dumps(body), {"Content-Type": "application/json",
                                                            "x-api-key": "sk-ant-test", **(headers or {})})
    response = conn.getresponse()
    return response.status, response.read(), response


def _events(short_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (short_dir / "egress.jsonl").read_text().splitlines()]


def test_a_streamed_answer_reaches_the_cli_whole_and_the_meter_gets_the_same_bytes(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    with _proxy(short_dir, server, ca, seen):
        conn = _client(short_dir, ca)
        status, data, _ = _post(conn, {**MESSAGE, "stream": True})
        conn.close()
    assert status == 200 and b"message_stop" in data
    ((exchange, facts),) = seen.exchanges
    assert exchange.response_body == data  # de-chunked, exactly what the CLI read
    assert json.loads(exchange.request_body)["model"] == "claude-x"
    assert (exchange.host, exchange.method, exchange.path, exchange.status) == (HOST, "POST", "/v1/messages", 200)
    assert facts["by_proxy"] is False


def test_the_proxy_asks_the_provider_for_an_uncompressed_answer_the_meter_can_read(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    with _proxy(short_dir, server, ca, seen):
        conn = _client(short_dir, ca)
        status, data, response = _post(conn, MESSAGE, {"Accept-Encoding": "gzip"})
        conn.close()
    assert status == 200 and response.getheader("Content-Encoding") is None
    ((exchange, _),) = seen.exchanges
    assert json.loads(exchange.response_body)["usage"]["output_tokens"] == 7


def test_requests_on_one_kept_alive_tunnel_are_each_an_exchange(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    with _proxy(short_dir, server, ca, seen):
        conn = _client(short_dir, ca)
        for _ in range(3):
            assert _post(conn, MESSAGE)[0] == 200
        conn.close()
    assert len(seen.exchanges) == 3 and len(server.requests) == 3
    decision, close, _summary = _events(short_dir)
    assert decision["reason"].endswith("; metered")
    assert close["exchanges"] == 3


def test_a_chunked_request_body_is_relayed_and_metered_without_its_framing(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    payload = json.dumps(MESSAGE).encode()
    with _proxy(short_dir, server, ca, seen):
        conn = _client(short_dir, ca)
        conn.putrequest("POST", "/v1/messages")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        for start in range(0, len(payload), 50):
            piece = payload[start:start + 50]
            conn.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        conn.send(b"0\r\n\r\n")
        response = conn.getresponse()
        response.read()
        conn.close()
    assert response.status == 200
    ((exchange, _),) = seen.exchanges
    assert exchange.request_body == payload


def test_a_websocket_upgrade_is_answered_426_by_the_proxy_and_never_reaches_the_provider(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    with _proxy(short_dir, server, ca, seen):
        conn = _client(short_dir, ca)
        conn.request("GET", "/v1/responses", headers={"Upgrade": "websocket", "Connection": "Upgrade"})
        response = conn.getresponse()
        body = response.read()
        conn.close()
    assert response.status == 426 and b"websocket_unsupported" in body
    assert server.requests == []
    ((exchange, facts),) = seen.exchanges
    assert exchange.status == 426 and facts["by_proxy"] is True


def test_a_request_the_meter_refuses_is_answered_402_and_never_forwarded(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    seen.refuse_with = "the run's budget of $0.01 is spent"
    with _proxy(short_dir, server, ca, seen):
        conn = _client(short_dir, ca)
        status, data, _ = _post(conn, MESSAGE)
        conn.close()
    assert status == 402 and b"budget" in data
    assert server.requests == []
    ((exchange, facts),) = seen.exchanges
    assert facts["by_proxy"] is True and json.loads(exchange.request_body)["model"] == "claude-x"


def test_bytes_that_are_not_http_inside_a_metered_tunnel_are_a_refusal(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    with _proxy(short_dir, server, ca, seen):
        sock, _ = _tunnel(short_dir)
        tls = ssl.create_default_context(cafile=str(ca.ca_file)).wrap_socket(sock, server_hostname=HOST)
        tls.sendall(b"\x16\x03 this is no request line\r\n\r\n")
        try:
            tls.recv(100)
        except OSError:
            pass
        tls.close()
    refusals = [e for e in _events(short_dir) if e.get("allowed") is False]
    assert refusals and "not HTTP/1.1" in refusals[0]["reason"]
    assert _events(short_dir)[-1]["refused"] == {"malformed": 1}
    assert seen.exchanges == [] and server.requests == []


def test_a_client_that_does_not_trust_the_campaign_ca_sends_nothing_upstream(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    with _proxy(short_dir, server, ca, seen):
        sock, _ = _tunnel(short_dir)
        with pytest.raises(ssl.SSLCertVerificationError):
            ssl.create_default_context().wrap_socket(sock, server_hostname=HOST)
    close = next(e for e in _events(short_dir) if e["event"] == "close")
    assert close["reason"].startswith("agent TLS handshake failed") and server.requests == []


def test_an_upstream_whose_certificate_is_not_trusted_is_a_502(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    other = make_certificates(short_dir / "other", [HOST])  # a CA the server's certificate is not from
    seen = Seen()
    with _proxy(short_dir, server, ca, seen, upstream_ca=other.ca):
        sock, answer = _tunnel(short_dir)
        sock.close()
    assert answer.startswith(b"HTTP/1.1 502") and server.requests == []


def test_an_extra_endpoint_stays_a_raw_tunnel(short_dir: Path, server: ScriptedModelServer,
                                              ca: MeteringCA) -> None:
    seen = Seen()
    policy = EgressPolicy(extra=(("127.0.0.1", server.port),))
    with _proxy(short_dir, server, ca, seen, policy=policy):
        raw = socket.socket(socket.AF_UNIX)
        raw.settimeout(10)
        raw.connect(str(short_dir / "p.sock"))
        raw.sendall(f"CONNECT 127.0.0.1:{server.port} HTTP/1.1\r\n\r\n".encode())
        assert raw.recv(100).startswith(b"HTTP/1.1 200")
        tls = ssl.create_default_context(cafile=str(server.ca)).wrap_socket(  # type: ignore[attr-defined]
            raw, server_hostname="127.0.0.1")  # the server's own certificate: nothing in between
        tls.close()
    assert seen.exchanges == []
    assert not _events(short_dir)[0]["reason"].endswith("metered")


def test_request_bodies_kept_for_the_meter_are_bounded_by_the_proxys_pool_and_given_back(
        short_dir: Path, server: ScriptedModelServer, ca: MeteringCA) -> None:
    seen = Seen()
    padded = {**MESSAGE, "metadata": {"user_id": "x" * 100_000}}  # a 100 KB request, relayed whole
    with _proxy(short_dir, server, ca, seen, capture_pool_bytes=64 * 1024):
        conn = _client(short_dir, ca)
        statuses = [_post(conn, padded)[0] for _ in range(2)]
        conn.close()
    assert statuses == [200, 200]
    kept = [len(exchange.request_body) for exchange, _ in seen.exchanges]
    assert kept == [64 * 1024, 64 * 1024]  # the first exchange's bytes went back to the pool
    assert all(exchange.truncated for exchange, _ in seen.exchanges)
    assert all(json.loads(exchange.response_body)["usage"] for exchange, _ in seen.exchanges)  # answers whole


def test_an_answer_the_cli_cuts_by_closing_is_recorded_as_the_agents_doing(short_dir: Path, ca: MeteringCA) -> None:
    import time

    certs = make_certificates(short_dir / "long-certs", [HOST])
    long = {"model": "scripted", "turns": [{"text": "word " * 2_000_000, "usage": {"input": 5, "output": 7}}]}
    seen = Seen()
    with ScriptedModelServer(parse_script(long), certificates=certs) as server:
        server.ca = certs.ca  # type: ignore[attr-defined]
        with _proxy(short_dir, server, ca, seen):
            conn = _client(short_dir, ca)
            conn.request("POST", "/v1/messages", json.dumps({**MESSAGE, "stream": True}),
                         {"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read1(1000)  # the first bytes of a 10 MB stream, then the CLI goes away
            response.close()
            conn.close()
            for _ in range(100):
                if seen.exchanges:
                    break
                time.sleep(0.05)
    ((exchange, facts),) = seen.exchanges
    assert exchange.status == 200 and facts["agent_closed"] is True
