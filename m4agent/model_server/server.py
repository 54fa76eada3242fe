"""The scripted model server: one HTTPS (or HTTP) server that answers every protocol from one script.

It stands in for the model providers during a dry run: the egress proxy routes a
provider's host name (``api.anthropic.com``, ...) to it, and the CLIs inside the
container talk to it exactly as to the provider, TLS included (a throwaway CA from
``tls.make_certificates``). Each request is told apart by its path (``PROTOCOLS``),
answered with the script's turn for its conversation (``script``), rendered in the
provider's format, streamed when asked. Every request is logged (``requests`` and,
with ``log``, one JSON line each) so a test can see what the CLI asked.

Failures: a turn ``fail = KIND`` (or a ``faults`` entry) answers as the provider does
for that failure; ``hang`` holds the request open, sending nothing, until the server
closes.
"""

from __future__ import annotations

import gzip
import json
import socket
import ssl
import threading
import time
import zlib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from m4agent.model_server.answers import Answer, shell_call
from m4agent.model_server.anthropic import Anthropic
from m4agent.model_server.gemini import Gemini
from m4agent.model_server.ollama import Ollama
from m4agent.model_server.openai import ChatCompletions, Responses
from m4agent.model_server.protocol import Protocol, Reply, json_reply
from m4agent.model_server.script import Script, Usage
from m4agent.model_server.tls import Certificates

PROTOCOLS: tuple[Protocol, ...] = (Anthropic(), Responses(), ChatCompletions(), Gemini(), Ollama())
MAX_BODY = 64 * 1024 * 1024
ACCOUNT_FAILURES = frozenset({"invalid_key", "quota", "unknown_model"})  # the provider's answer to any request


@dataclass
class _Faults:
    """Request-count faults still to answer, shared by the handler threads."""

    remaining: list[list[Any]]
    lock: threading.Lock

    def take(self) -> str | None:
        with self.lock:
            for entry in self.remaining:
                if entry[1] > 0:
                    entry[1] -= 1
                    return str(entry[0])
        return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedModelServer

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        if self.owner.tls_context is not None:
            sock = self.owner.tls_context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, address

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up or failed TLS is no concern of the server's log


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0] or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        else:
            length = int(self.headers.get("Content-Length") or 0)
            data = self.rfile.read(min(length, MAX_BODY)) if length else b""
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding == "gzip":
            data = gzip.decompress(data)
        elif encoding == "deflate":
            data = zlib.decompress(data)
        elif encoding == "zstd":
            import zstandard  # type: ignore[import-not-found]

            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
        return data

    def _handle(self, method: str) -> None:
        owner = self.server.owner
        path = self.path
        try:
            raw = self._body()
            body = json.loads(raw) if raw.strip() else {}
            if not isinstance(body, dict):
                body = {}
        except Exception as exc:  # a body we cannot read: answer 400, as a provider would
            self._send(json_reply({"error": {"message": f"unreadable body: {exc}"}}, 400))
            return
        entry: dict[str, Any] = {"ts": time.time(), "method": method, "path": path}
        reply = owner.answer(method, path, body, entry)
        entry["status"] = reply.status if reply is not None else None
        owner.record(entry)
        if reply is None:  # hang: hold the request until the server closes
            while not owner.closing.wait(0.25):
                pass
            self.close_connection = True
            return
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.chunks is None:
                body = reply.body
                if "gzip" in self.headers.get("Accept-Encoding", "").lower():  # as the providers answer
                    body = gzip.compress(body)
                    self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                for chunk in reply.chunks:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self._handle("POST")

    def do_GET(self) -> None:  # noqa: N802
        self._handle("GET")


class ScriptedModelServer:
    """Serve ``script`` on ``host:port`` (0: any free port), over TLS when ``certificates`` are given.

    Use as a context manager or ``start()``/``close()``. ``requests`` lists what was asked
    (method, path, protocol, turn, kind, status); ``log`` appends the same as JSON lines.
    """

    def __init__(self, script: Script, *, host: str = "127.0.0.1", port: int = 0,
                 certificates: Certificates | None = None, log: Path | None = None) -> None:
        self.script = script
        self.host, self.port = host, port
        self.log = log
        self.requests: list[dict[str, Any]] = []
        self.closing = threading.Event()
        self._lock = threading.Lock()
        self._faults = _Faults([[f.kind, f.requests] for f in script.faults], threading.Lock())
        self.tls_context: ssl.SSLContext | None = None
        if certificates is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificates.chain, certificates.key)
            context.set_alpn_protocols(["http/1.1"])
            self.tls_context = context
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle

    def start(self) -> ScriptedModelServer:
        server = _Server((self.host, self.port), _Handler)
        server.owner = self
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="m4agent-model-server", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    @property
    def url(self) -> str:
        return f"{'https' if self.tls_context else 'http'}://{self.host}:{self.port}"

    # ---- answering

    def record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(entry)
            if self.log is not None:
                with open(self.log, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(entry, sort_keys=True) + "\n")

    def fail(self, kind: str | None, requests: int = 1_000_000) -> None:
        """From now on answer the next ``requests`` model turns with failure ``kind`` (None: stop failing)."""
        with self._faults.lock:
            self._faults.remaining[:] = [] if kind is None else [[kind, requests]]

    def answer(self, method: str, path: str, body: dict[str, Any], entry: dict[str, Any]) -> Reply | None:
        """The reply to one request (None: hang), noting in ``entry`` what was decided."""
        protocol = next((p for p in PROTOCOLS if p.matches(method, path.split("?")[0])), None)
        if protocol is None:
            entry["kind"] = "unknown path"
            return json_reply({"error": {"message": f"{path} is not served by the scripted model server"}}, 404)
        entry["protocol"] = protocol.name
        other = protocol.other(method, path, body)
        if other is not None:
            entry["kind"] = "other"
            return other
        tools = protocol.tools(body)
        model = protocol.model(body, path) or self.script.model
        stream = protocol.streaming(body, path)
        entry.update(model=model, stream=stream, tools=[name for name, _ in tools])
        if not tools:  # a side request of the CLI (titles, summaries, checks, a preflight): a short text, no usage
            refused = self.script.turn(protocol.turn_index(body)).fail
            if refused in ACCOUNT_FAILURES:  # a bad key, a spent quota, an unknown model refuse every request
                entry["kind"] = f"fail:{refused}"
                return protocol.failure(refused, model)
            entry["kind"] = "side"
            return protocol.render(Answer("ok", None, Usage(), model), stream)
        fault = self._faults.take()
        index = protocol.turn_index(body)
        turn = self.script.turn(index)
        entry["turn"] = index
        kind = fault or turn.fail
        if kind is not None:
            entry["kind"] = f"fail:{kind}"
            return None if kind == "hang" else protocol.failure(kind, model)
        if turn.shell is not None:
            call = shell_call(tools, turn.shell, protocol.call_prefix)
            if call is None:
                entry["kind"] = "no shell tool"
                return protocol.render(Answer("I have no shell tool to run the command.", None, turn.usage, model),
                                       stream)
            entry["kind"] = f"call:{call.name}"
            return protocol.render(Answer(None, call, turn.usage, model), stream)
        entry["kind"] = "text"
        return protocol.render(Answer(turn.text, None, turn.usage, model), stream)
