"""The egress door with real sockets: forwarder (a python3 subprocess) -> proxy (Unix socket) -> upstream.

No Docker here: the forwarder runs as the container would run it, a python3 process
listening on loopback; the proxy listens on a Unix socket in a temporary folder; the
upstream is a local TCP echo server, allowed through the policy's ``extra`` pairs.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import m4agent.harness.forwarder as forwarder_module
from m4agent.errors import M4AgentError
from m4agent.harness.egress import EgressPolicy, EgressProxy, load_model_hosts, policy_for

FORWARDER = Path(forwarder_module.__file__)
WAIT_S = 20.0  # a guard against hanging, never a measured bound


class EchoServer:
    """A TCP server on 127.0.0.1 that sends back every byte it receives, until the client closes."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    @staticmethod
    def _echo(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    def close(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        self.listener.close()


@pytest.fixture
def echo() -> Iterator[EchoServer]:
    server = EchoServer()
    yield server
    server.close()


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    """A short folder for the Unix socket (a socket path must fit in 107 bytes, pytest's tmp_path may not)."""
    folder = Path(tempfile.mkdtemp(prefix="m4e-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def start_proxy(socket_dir: Path, log: Path, policy: EgressPolicy, **options: Any) -> EgressProxy:
    return EgressProxy(socket_dir / "proxy.sock", policy, log, **options).start()


def unix_client(path: Path) -> socket.socket:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(WAIT_S)
    client.connect(str(path))
    return client


def read_head(sock: socket.socket) -> bytes:
    """Read an HTTP response head (up to its blank line), byte by byte so nothing after it is consumed."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        if not byte:
            break
        head += byte
    return head


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def decisions(log: Path) -> list[dict[str, Any]]:
    """The decision lines (the log also holds close lines and, last, the proxy's summary)."""
    return [event for event in events(log) if event["event"] == "decision"]


def wait_for_event(log: Path, kind: str) -> dict[str, Any]:
    """The first event of ``kind``; a tunnel's close line is written by the proxy's thread after the relay ends."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = [event for event in events(log) if event["event"] == kind]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no {kind!r} event in {log}: {log.read_text()!r}")


@pytest.fixture
def forwarder(socket_dir: Path, tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """The forwarder as a real python3 process on a free loopback port, relaying to socket_dir/proxy.sock."""
    ready = tmp_path / "forwarder.ready"
    process = subprocess.Popen(
        [sys.executable, str(FORWARDER), "--listen", "127.0.0.1:0", "--socket", str(socket_dir / "proxy.sock"),
         "--ready", str(ready)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        port = int(ready.read_text().strip().rpartition(":")[2])
        yield port, process
    finally:
        process.terminate()
        process.wait(WAIT_S)


# --------------------------------------------------------------------------- tunnels


def test_tunnel_through_forwarder_and_proxy_round_trips_bytes(
    echo: EchoServer, socket_dir: Path, tmp_path: Path, forwarder: tuple[int, subprocess.Popen[str]]
) -> None:
    log = tmp_path / "egress.jsonl"
    payload = os.urandom(200_000)
    with EgressProxy(socket_dir / "proxy.sock", EgressPolicy(extra=(("127.0.0.1", echo.port),)), log):
        with socket.create_connection(("127.0.0.1", forwarder[0]), timeout=WAIT_S) as client:
            client.sendall(f"CONNECT 127.0.0.1:{echo.port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            assert read_head(client).startswith(b"HTTP/1.1 200 ")
            client.sendall(payload)
            client.shutdown(socket.SHUT_WR)
            assert read_all(client) == payload
        closed = wait_for_event(log, "close")
    decision = wait_for_event(log, "decision")
    assert (decision["method"], decision["host"], decision["port"], decision["allowed"]) == (
        "CONNECT", "127.0.0.1", echo.port, True)
    assert (closed["bytes_up"], closed["bytes_down"], closed["allowed"]) == (len(payload), len(payload), True)


def test_bytes_sent_right_behind_the_connect_head_reach_the_upstream(
    echo: EchoServer, socket_dir: Path, tmp_path: Path
) -> None:
    policy = EgressPolicy(extra=(("127.0.0.1", echo.port),))
    with start_proxy(socket_dir, tmp_path / "egress.jsonl", policy) as proxy, unix_client(proxy.socket_path) as client:
        client.sendall(f"CONNECT 127.0.0.1:{echo.port} HTTP/1.1\r\n\r\nhello, pipelined".encode())
        assert read_head(client).startswith(b"HTTP/1.1 200 ")
        assert read_exactly(client, len(b"hello, pipelined")) == b"hello, pipelined"


def test_unreachable_allowed_upstream_gets_502_and_is_logged_allowed(socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    with socket.socket() as bound_not_listening:  # holds a port nobody accepts on: connecting is refused
        bound_not_listening.bind(("127.0.0.1", 0))
        port = bound_not_listening.getsockname()[1]
        proxy = start_proxy(socket_dir, log, EgressPolicy(extra=(("127.0.0.1", port),)))
        with proxy, unix_client(proxy.socket_path) as client:
            client.sendall(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
            assert read_all(client).startswith(b"HTTP/1.1 502 ")
    (event,) = decisions(log)
    assert (event["allowed"], event["status"]) == (True, 502)


# --------------------------------------------------------------------------- refusals


def refused(socket_dir: Path, log: Path, policy: EgressPolicy, request: bytes) -> bytes:
    """Send ``request`` straight to the proxy's socket and return its whole answer."""
    with start_proxy(socket_dir, log, policy) as proxy, unix_client(proxy.socket_path) as client:
        client.sendall(request)
        return read_all(client)


def test_connect_to_a_host_not_allowed_gets_403_and_is_logged_denied(socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    answer = refused(socket_dir, log, policy_for(["openai"]), b"CONNECT example.org:443 HTTP/1.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 403 ")
    (event,) = decisions(log)
    assert (event["host"], event["port"], event["allowed"], event["status"]) == ("example.org", 443, False, 403)


def test_connect_to_an_allowed_host_on_another_port_gets_403(socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    answer = refused(socket_dir, log, policy_for(["openai"]), b"CONNECT api.openai.com:22 HTTP/1.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert decisions(log)[0]["allowed"] is False


def test_plain_http_get_gets_403_and_the_log_keeps_only_the_target(socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    request = (b"GET http://api.openai.com/v1/models?key=hunter2-secret HTTP/1.1\r\n"
               b"Host: api.openai.com\r\nAuthorization: Bearer hunter2-token\r\n\r\n")
    answer = refused(socket_dir, log, policy_for(["openai"]), request)
    assert answer.startswith(b"HTTP/1.1 403 ")
    (event,) = decisions(log)
    assert (event["method"], event["host"], event["port"], event["allowed"]) == ("GET", "api.openai.com", 80, False)
    assert "hunter2" not in log.read_text()


def test_malformed_head_gets_400_and_is_logged(socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    answer = refused(socket_dir, log, EgressPolicy(), b"\x16\x03\x01 this is not http\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 ")
    (event,) = decisions(log)
    assert (event["allowed"], event["status"], event["method"]) == (False, 400, None)


def test_connect_without_a_port_is_malformed(socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    answer = refused(socket_dir, log, policy_for(["openai"]), b"CONNECT api.openai.com HTTP/1.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert decisions(log)[0]["allowed"] is False


def test_head_over_16_kib_gets_400_and_is_logged(socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    request = b"CONNECT api.openai.com:443 HTTP/1.1\r\nX-Padding: " + b"a" * (17 * 1024) + b"\r\n\r\n"
    answer = refused(socket_dir, log, policy_for(["openai"]), request)
    assert answer.startswith(b"HTTP/1.1 400 ")
    (event,) = decisions(log)
    assert (event["allowed"], event["reason"]) == (False, "request head over 16 KiB")


def test_connection_closed_without_a_byte_is_not_logged(socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    with start_proxy(socket_dir, log, EgressPolicy()) as proxy:
        unix_client(proxy.socket_path).close()
        with unix_client(proxy.socket_path) as client:  # a second request proves the first was handled
            client.sendall(b"GET / HTTP/1.1\r\nHost: example.org\r\n\r\n")
            read_all(client)
    assert [event["method"] for event in decisions(log)] == ["GET"]


# --------------------------------------------------------------------------- lifecycle


def test_socket_file_is_world_connectable(socket_dir: Path, tmp_path: Path) -> None:
    with start_proxy(socket_dir, tmp_path / "egress.jsonl", EgressPolicy()) as proxy:
        assert stat.S_IMODE(proxy.socket_path.stat().st_mode) == 0o666


def test_close_ends_open_tunnels_and_stops_serving(echo: EchoServer, socket_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    proxy = start_proxy(socket_dir, log, EgressPolicy(extra=(("127.0.0.1", echo.port),)))
    client = unix_client(proxy.socket_path)
    client.sendall(f"CONNECT 127.0.0.1:{echo.port} HTTP/1.1\r\n\r\n".encode())
    assert read_head(client).startswith(b"HTTP/1.1 200 ")
    proxy.close()
    assert not proxy.running
    assert client.recv(1) == b""  # the idle tunnel was ended by close(), not left for the idle timeout
    client.close()
    with pytest.raises(OSError):
        unix_client(proxy.socket_path)
    assert wait_for_event(log, "close")["reason"] == "stopped"


def test_stale_socket_is_replaced_but_another_file_is_refused(socket_dir: Path, tmp_path: Path) -> None:
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(socket_dir / "proxy.sock"))
    stale.close()
    with start_proxy(socket_dir, tmp_path / "egress.jsonl", EgressPolicy()):
        pass
    (socket_dir / "proxy.sock").write_text("not a socket")
    with pytest.raises(M4AgentError, match="not a socket"):
        start_proxy(socket_dir, tmp_path / "egress.jsonl", EgressPolicy())


# --------------------------------------------------------------------------- forwarder


def test_forwarder_closes_a_connection_it_cannot_relay_and_keeps_serving(
    forwarder: tuple[int, subprocess.Popen[str]]
) -> None:
    # The fixture's socket folder holds no proxy: every relay attempt fails.
    for _ in range(2):
        with socket.create_connection(("127.0.0.1", forwarder[0]), timeout=WAIT_S) as client:
            client.sendall(b"CONNECT api.openai.com:443 HTTP/1.1\r\n\r\n")
            try:
                answer = read_all(client)
            except ConnectionResetError:  # closed with our request unread: a reset, still no answer
                answer = b""
            assert answer == b""
    assert forwarder[1].poll() is None


# --------------------------------------------------------------------------- policy


def test_policy_digest_ignores_order_and_spelling() -> None:
    first = EgressPolicy(frozenset({"api.openai.com", "chatgpt.com"}), (".chatgpt.com",), extra=(("127.0.0.1", 8080),))
    second = EgressPolicy(frozenset({"ChatGPT.com.", "api.openai.com"}), (".CHATGPT.com",), frozenset({443}),
                          extra=(("127.0.0.1", 8080), ("127.0.0.1", 8080)))
    assert first.digest() == second.digest()


@pytest.mark.parametrize(
    "changed",
    [
        EgressPolicy(frozenset({"api.openai.com"}), (".chatgpt.com",), extra=(("127.0.0.1", 8080),)),
        EgressPolicy(frozenset({"api.openai.com", "chatgpt.com"}), (), extra=(("127.0.0.1", 8080),)),
        EgressPolicy(frozenset({"api.openai.com", "chatgpt.com"}), (".chatgpt.com",), frozenset({443, 8443}),
                     extra=(("127.0.0.1", 8080),)),
        EgressPolicy(frozenset({"api.openai.com", "chatgpt.com"}), (".chatgpt.com",), extra=(("127.0.0.1", 8081),)),
    ],
    ids=["host", "suffix", "port", "extra"],
)
def test_policy_digest_changes_with_the_allowlist(changed: EgressPolicy) -> None:
    base = EgressPolicy(frozenset({"api.openai.com", "chatgpt.com"}), (".chatgpt.com",), extra=(("127.0.0.1", 8080),))
    assert changed.digest() != base.digest()


@pytest.mark.parametrize(
    ("host", "port", "allowed"),
    [
        ("ab.chatgpt.com", 443, True),
        ("API.OPENAI.COM.", 443, True),
        ("evilchatgpt.com", 443, False),
        ("chatgpt.com.evil.org", 443, False),
        ("api.openai.com", 80, False),
        ("api.anthropic.com", 443, False),
    ],
)
def test_policy_matches_hosts_exactly_and_suffixes_at_a_dot(host: str, port: int, allowed: bool) -> None:
    assert policy_for(["openai"]).decide(host, port)[0] is allowed


def test_extra_endpoint_allows_only_its_exact_port() -> None:
    policy = policy_for([], extra=[("127.0.0.1", 11434)])
    assert (policy.decide("127.0.0.1", 11434)[0], policy.decide("127.0.0.1", 443)[0]) == (True, False)


def test_policy_for_unknown_provider_names_the_known_ones() -> None:
    with pytest.raises(M4AgentError, match="anthropic, google, openai"):
        policy_for(["mistral"])


def test_model_hosts_file_lists_m4bench_hosts_per_provider() -> None:
    table = load_model_hosts()
    assert sorted(table) == ["anthropic", "google", "openai"]
    everything = {host for entry in table.values() for host in entry.hosts}
    assert len(everything) == 11 and "mcp-proxy.anthropic.com" in everything
    assert table["openai"].suffixes == (".chatgpt.com", ".auth.openai.com")
