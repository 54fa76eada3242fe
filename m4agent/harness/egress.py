"""The one door out of an agent's container: an allowlist CONNECT proxy on a Unix socket.

The agent's container runs with Docker network ``none``. The harness starts one
``EgressProxy`` per run, listening on a Unix socket in a per-run folder that is
bind-mounted into the container at ``layout.EGRESS_DIR``; inside, ``forwarder.py``
relays ``127.0.0.1:layout.PROXY_PORT`` (where ``HTTPS_PROXY`` points) to that socket.
Nothing else can leave the container, DNS included: the proxy resolves names itself.

The proxy reads one HTTP request head per connection and decides:

- ``CONNECT host:port`` that ``EgressPolicy`` allows: connect upstream (10 s timeout),
  answer ``200 Connection established`` and relay bytes both ways until both sides
  have closed, 300 s pass without a byte, or the proxy stops; ``502`` when the
  upstream cannot be reached.
- ``CONNECT`` to anything else: ``403``. Any other method (plain HTTP): ``403``.
- A head that is not HTTP, not ASCII, has no valid target, or exceeds 16 KiB, or
  that is not complete within 10 s of the connection: ``400``.
- A connection beyond the 64 already open: ``503`` at once, before its head is read.

Everything the agent can make the proxy do is bounded, because the agent is hostile
input: one asyncio event loop in one thread serves every connection (tunnels too), a
small fixed pool resolves allowed host names, at most ``MAX_CONNECTIONS`` connections
are open at once and each must send its head within ``HEAD_TIMEOUT_S``. The egress
log is bounded too (``EgressLog``): refusals and tunnels each have a budget of lines,
past which they are counted, not written, and a closing ``summary`` line gives the
counts. Every refusal, written or counted, makes the attempt a policy violation
(``integrity.egress_verdict``): the proxy cannot read what a connection it refused or
timed out was asking for, so it fails closed.

A connection that closes before sending a single byte asked for nothing and is not
logged. The policy is one frozen object whose ``digest()`` goes into every run
record; ``policy_for`` builds it from the provider hosts in ``model_hosts.toml``.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import os
import re
import socket
import ssl
import stat
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from m4agent.errors import M4AgentError
from m4agent.harness.forwarder import relay, shut
from m4agent.harness.wire import http1, intercept
from m4agent.harness.wire.certs import MeteringCA

MODEL_HOSTS_FILE = Path(__file__).with_name("model_hosts.toml")
DEFAULT_PORTS: frozenset[int] = frozenset({443})
MAX_HEAD_BYTES = 16 * 1024
CONNECT_TIMEOUT_S = 10.0
IDLE_TIMEOUT_S = 300.0
HEAD_TIMEOUT_S = 10.0  # an agent's HTTP client sends its CONNECT at once; a silent connection is a held slot
CLOSE_TIMEOUT_S = 5.0
MAX_CONNECTIONS = 64  # open at once, per proxy (one proxy per attempt); agent CLIs use a handful
MAX_REFUSAL_LINES = 1_000  # refusals written one line each; past this, counted only
MAX_TUNNEL_LINES = 2_000  # allowed decisions and close lines; past this, counted only
RESOLVER_THREADS = 4  # name lookups of allowed hosts (getaddrinfo blocks, so it needs threads)
_STOP_GRACE_S = 1.0  # at close, tunnels get this long to write their close lines
_MAX_UNIX_PATH = 107  # sun_path is 108 bytes with the terminating NUL

_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOSTNAME_RE = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_METHOD_RE = re.compile(r"[A-Z]{1,20}")
_VERSION_RE = re.compile(r"HTTP/1\.[01]")


# --------------------------------------------------------------------------- policy


def normalize_host(text: str) -> str | None:
    """The canonical form of a host name or IP literal (lower case, no trailing dot), or None.

    IPv6 literals may come bracketed. Anything that is neither a DNS name nor an IP
    address (spaces, slashes, user info, non-ASCII) gives None, so it can be neither
    allowed nor logged verbatim.
    """
    host = text.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    if host.endswith("."):
        host = host[:-1]
    if not host or len(host) > 253 or not _HOSTNAME_RE.fullmatch(host):
        return None
    return host


def _require_host(text: str) -> str:
    host = normalize_host(text)
    if host is None:
        raise M4AgentError(f"egress policy: {text!r} is not a host name or IP address; fix the allowlist")
    return host


def _require_suffix(text: str) -> str:
    if not text.startswith(".") or normalize_host(text[1:]) is None:
        raise M4AgentError(
            f"egress policy: suffix {text!r} must be a dot followed by a domain (e.g. '.chatgpt.com'); "
            "fix the allowlist"
        )
    return "." + _require_host(text[1:])


def _require_port(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise M4AgentError(f"egress policy: port {value!r} is not a TCP port (1-65535); fix the allowlist")
    return value


@dataclass(frozen=True)
class EgressPolicy:
    """Which tunnels an agent may open: the whole network policy of a run, as one value.

    ``hosts`` match exactly and ``suffixes`` (each starting with a dot) match any
    subdomain, both on ``ports`` only (443 by default). ``extra`` holds exact
    ``(host, port)`` pairs for local endpoints such as a model server on the host's
    127.0.0.1; they ignore ``ports``. ``routes`` maps a host name to the address the
    proxy connects to instead of resolving it (``(host, address, port)``): a routed host
    is allowed on ``ports`` and its tunnel goes to ``address:port`` (the scripted model
    server standing in for a provider, or a local model endpoint); every decision on it
    says so in the log. Values are normalised on construction, so two policies that
    allow the same tunnels are equal and have the same ``digest()``.
    """

    hosts: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    ports: frozenset[int] = DEFAULT_PORTS
    extra: tuple[tuple[str, int], ...] = ()
    routes: tuple[tuple[str, str, int], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "hosts", frozenset(_require_host(host) for host in self.hosts))
        object.__setattr__(self, "suffixes", tuple(sorted({_require_suffix(s) for s in self.suffixes})))
        object.__setattr__(self, "ports", frozenset(_require_port(port) for port in self.ports))
        pairs = {(_require_host(host), _require_port(port)) for host, port in self.extra}
        object.__setattr__(self, "extra", tuple(sorted(pairs)))
        routed = {(_require_host(host), _require_host(address), _require_port(port))
                  for host, address, port in self.routes}
        if len({host for host, _, _ in routed}) != len(routed):
            raise M4AgentError("egress policy: a host is routed to two addresses; keep one route per host")
        object.__setattr__(self, "routes", tuple(sorted(routed)))

    def upstream(self, host: str, port: int) -> tuple[str, int]:
        """Where a tunnel to ``host:port`` really goes: its route, or the host itself."""
        canonical = normalize_host(host)
        for routed, address, to_port in self.routes:
            if routed == canonical:
                return address, to_port
        return host, port

    def is_extra(self, host: str, port: int) -> bool:
        """Whether ``host:port`` is an extra endpoint (relayed as raw bytes, never metered)."""
        return (normalize_host(host), port) in self.extra

    def decide(self, host: str, port: int) -> tuple[bool, str]:
        """Whether a tunnel to ``host:port`` is allowed, and why, in a few words for the log."""
        canonical = normalize_host(host)
        if canonical is None:
            return False, "not a host name or IP address"
        if (canonical, port) in self.extra:
            return True, "extra endpoint"
        route = next(((a, p) for h, a, p in self.routes if h == canonical), None)
        if route is not None:
            if port not in self.ports:
                return False, f"port {port} not allowed for routed host"
            return True, f"routed to {route[0]}:{route[1]}"
        if canonical in self.hosts:
            matched = "allowlisted host"
        else:
            suffix = next((s for s in self.suffixes if canonical.endswith(s)), None)
            if suffix is None:
                return False, "host not in allowlist"
            matched = f"allowlisted suffix {suffix}"
        if port not in self.ports:
            return False, f"port {port} not allowed for {matched}"
        return True, matched

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON form (sorted lists), recorded in the campaign lock and hashed by ``digest``."""
        return {
            "hosts": sorted(self.hosts),
            "suffixes": list(self.suffixes),
            "ports": sorted(self.ports),
            "extra": [[host, port] for host, port in self.extra],
        } | ({"routes": [[h, a, p] for h, a, p in self.routes]} if self.routes else {})

    def digest(self) -> str:
        """sha256 (hex) of the canonical JSON: changes exactly when the allowed tunnels change."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ProviderHosts:
    """One provider's model hosts, as ``model_hosts.toml`` lists them."""

    provider: str
    hosts: tuple[str, ...]
    suffixes: tuple[str, ...]


def load_model_hosts(path: Path = MODEL_HOSTS_FILE) -> dict[str, ProviderHosts]:
    """Read the provider -> hosts/suffixes table (by default the packaged ``model_hosts.toml``)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise M4AgentError(f"cannot read the model host list {path}: {exc}; restore it from the package") from exc
    table: dict[str, ProviderHosts] = {}
    for provider, entry in data.items():
        hosts = entry.get("hosts") if isinstance(entry, dict) else None
        suffixes = entry.get("suffixes", []) if isinstance(entry, dict) else None
        lists = [hosts, suffixes]
        if not all(isinstance(items, list) and all(isinstance(item, str) for item in items) for items in lists):
            raise M4AgentError(
                f"{path}: provider [{provider}] needs `hosts` and `suffixes` as lists of strings; fix the file"
            )
        table[provider] = ProviderHosts(provider, tuple(hosts), tuple(suffixes))
    return table


def policy_for(
    providers: Iterable[str],
    extra: Iterable[tuple[str, int]] = (),
    *,
    routes: Iterable[tuple[str, str, int]] = (),
    ports: Iterable[int] = DEFAULT_PORTS,
    hosts_file: Path = MODEL_HOSTS_FILE,
) -> EgressPolicy:
    """The policy allowing the model hosts of ``providers`` (names in ``model_hosts.toml``) plus ``extra``.

    No providers and no extra gives a policy that allows nothing (the built-in agents).
    """
    table = load_model_hosts(hosts_file)
    hosts: set[str] = set()
    suffixes: set[str] = set()
    for provider in providers:
        if provider not in table:
            known = ", ".join(sorted(table))
            raise M4AgentError(f"no model hosts for provider {provider!r}; known providers: {known}")
        hosts.update(table[provider].hosts)
        suffixes.update(table[provider].suffixes)
    return EgressPolicy(frozenset(hosts), tuple(suffixes), frozenset(ports), tuple(extra), tuple(routes))


# --------------------------------------------------------------------------- log

# Why a request was refused, as counted in the summary line (one key per kind of refusal).
REFUSED_POLICY = "policy"  # CONNECT to a host or port the policy does not allow (403)
REFUSED_PLAIN_HTTP = "plain_http"  # any method but CONNECT (403)
REFUSED_MALFORMED = "malformed"  # not an HTTP head, no host:port, over 16 KiB, cut short (400)
REFUSED_HEAD_TIMEOUT = "head_timeout"  # no complete head within the head timeout (400)
REFUSED_CAPACITY = "capacity"  # more connections open than the proxy serves at once (503)


class EgressLog:
    """The run's egress log: one JSON object per line, appended and flushed per line, with a budget.

    Three kinds of line, told apart by ``event``:

    - ``decision``, written when the proxy has answered a request: ``ts`` (ISO 8601,
      UTC), ``conn`` (connection number within this proxy), ``method``, ``host``,
      ``port`` (null when the head did not yield them), ``allowed`` (bool), ``status``
      (the HTTP status answered) and ``reason``.
    - ``close``, written when a tunnel ends: the same ``conn``, ``method``, ``host``,
      ``port``, ``allowed: true``, plus ``bytes_up`` (agent to upstream),
      ``bytes_down``, ``duration_s`` and ``reason`` (why it ended).
    - ``summary``, the last line, written once when the proxy closes: ``connections``
      (accepted), ``tunnels`` (answered 200), ``refused`` (count per kind of refusal,
      the ``REFUSED_*`` keys, written or not), ``not_logged`` (``refusals`` and
      ``tunnel_lines`` past their budgets) and ``allowed``: false when anything was
      refused.

    Refusal decisions are written up to ``max_refusal_lines``, allowed decisions and
    close lines up to ``max_tunnel_lines``; past a budget a line is only counted. The
    two budgets are apart so that tunnels can never crowd refusals out: a log with any
    refusal holds at least one refusal line even if the summary never comes. The
    decision is written before any tunnel byte flows, so a harness killed mid-tunnel
    still leaves it. Request paths, headers and bodies are never written. All writes
    come from the proxy's one thread.
    """

    def __init__(self, path: Path, *, max_refusal_lines: int = MAX_REFUSAL_LINES,
                 max_tunnel_lines: int = MAX_TUNNEL_LINES) -> None:
        self.path = path
        self.max_refusal_lines = max_refusal_lines
        self.max_tunnel_lines = max_tunnel_lines
        self.refused: Counter[str] = Counter()
        self.tunnels = 0
        self._lines = {"refusals": 0, "tunnel_lines": 0}
        self._not_logged = {"refusals": 0, "tunnel_lines": 0}
        path.touch(exist_ok=True)

    def refusal(self, kind: str, event: dict[str, Any]) -> None:
        """Count a refusal of ``kind`` (a ``REFUSED_*`` key) and write its decision line while the budget lasts."""
        self.refused[kind] += 1
        self._budgeted("refusals", self.max_refusal_lines, event)

    def tunnel(self, event: dict[str, Any]) -> None:
        """An allowed decision or a close line, written while the budget lasts."""
        if event.get("event") == "decision" and event.get("status") == 200:
            self.tunnels += 1
        self._budgeted("tunnel_lines", self.max_tunnel_lines, event)

    def summary(self, connections: int) -> None:
        """The closing tally, always written (it is what makes counted-only refusals visible)."""
        self._write({"event": "summary", "allowed": not self.refused, "connections": connections,
                     "tunnels": self.tunnels, "refused": dict(sorted(self.refused.items())),
                     "not_logged": dict(self._not_logged)})

    def _budgeted(self, budget: str, limit: int, event: dict[str, Any]) -> None:
        if self._lines[budget] >= limit:
            self._not_logged[budget] += 1
            return
        self._lines[budget] += 1
        self._write(event)

    def _write(self, event: dict[str, Any]) -> None:
        line = json.dumps({"ts": datetime.now(UTC).isoformat(timespec="milliseconds"), **event}, sort_keys=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


# --------------------------------------------------------------------------- request heads


@dataclass(frozen=True)
class _Request:
    """What the proxy keeps of a request head: never more than the method and the target."""

    method: str | None
    host: str | None
    port: int | None
    problem: str | None = None  # set when the head is malformed (answered 400)


def _split_authority(authority: str, default_port: int | None) -> tuple[str, int] | None:
    """``host:port`` (IPv6 bracketed) as a normalised pair, or None when it is not one."""
    if authority.startswith("["):
        end = authority.find("]")
        host_text, rest = authority[: end + 1], authority[end + 1 :]
        if end < 0 or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else ""
    else:
        host_text, sep, port_text = authority.rpartition(":")
        if not sep:
            host_text, port_text = authority, ""
    if not port_text:
        if default_port is None:
            return None
        port = default_port
    elif port_text.isascii() and port_text.isdigit() and len(port_text) <= 5 and 1 <= int(port_text) <= 65535:
        port = int(port_text)
    else:
        return None
    host = normalize_host(host_text)
    return None if host is None else (host, port)


def _plain_http_target(target: str, header_lines: list[str]) -> tuple[str, int] | None:
    """Host and port a plain-HTTP request aims at: from an absolute URI, else the Host header."""
    scheme, sep, remainder = target.partition("://")
    if sep and scheme.lower() in ("http", "https"):
        authority = remainder.split("/", 1)[0].split("?", 1)[0].rpartition("@")[2]  # drop user info
        return _split_authority(authority, 443 if scheme.lower() == "https" else 80)
    for line in header_lines:
        name, colon, value = line.partition(":")
        if colon and name.strip().lower() == "host":
            return _split_authority(value.strip(), 80)
    return None


def parse_head(head: bytes) -> _Request:
    """Parse a request head (without its blank line) into the method and target, or say what is wrong."""
    try:
        text = head.decode("ascii")
    except UnicodeDecodeError:
        return _Request(None, None, None, "request head is not ASCII")
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not _METHOD_RE.fullmatch(parts[0]) or not _VERSION_RE.fullmatch(parts[2]):
        return _Request(None, None, None, "malformed request line")
    method, target = parts[0], parts[1]
    if method == "CONNECT":
        pair = _split_authority(target, None)
        if pair is None:
            return _Request(method, None, None, "CONNECT target is not host:port")
        return _Request(method, *pair)
    pair = _plain_http_target(target, lines[1:])
    return _Request(method, *(pair or (None, None)))


# --------------------------------------------------------------------------- proxy


_STATUS_TEXT = {200: "Connection established", 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway",
                503: "Service Unavailable"}
_NO_REQUEST = _Request(None, None, None)


def _answer(status: int, reason: str) -> bytes:
    """A short HTTP answer; a refusal carries the proxy's reason so the agent can see why."""
    if status == 200:
        return f"HTTP/1.1 200 {_STATUS_TEXT[200]}\r\n\r\n".encode("ascii")
    body = f"m4agent egress proxy: {reason}\n".encode("ascii", "replace")
    head = (
        f"HTTP/1.1 {status} {_STATUS_TEXT[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


@dataclass(frozen=True)
class Metering:
    """How a proxy reads its tunnels: the CA that ends the CLI's TLS, the TLS context toward the
    provider, and the meter each exchange goes to (``wire.intercept``)."""

    ca: MeteringCA
    upstream: ssl.SSLContext
    meter: intercept.Meter


class EgressProxy:
    """The allowlist proxy of one run, serving on ``socket_path`` until ``close()``.

    Use it as a context manager (``with EgressProxy(...) as proxy:``) or call
    ``start()``/``close()``. The socket's folder must exist (the caller makes it and
    bind-mounts it; the container's user needs search permission on it); the socket
    file itself is made mode 0666 so the container's non-root user can connect. A
    stale socket at the path is replaced; any other file there is an error.

    It costs at most ``1 + RESOLVER_THREADS`` threads whatever the agent does: one
    event loop serves every connection, and the resolver threads start only when an
    allowed host name (not an IP literal) is looked up.
    """

    def __init__(
        self,
        socket_path: Path,
        policy: EgressPolicy,
        log_path: Path,
        *,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        idle_timeout: float = IDLE_TIMEOUT_S,
        head_timeout: float = HEAD_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS,
        max_refusal_lines: int = MAX_REFUSAL_LINES,
        max_tunnel_lines: int = MAX_TUNNEL_LINES,
        metering: Metering | None = None,
        capture_pool_bytes: int = http1.CAPTURE_POOL_BYTES,
    ) -> None:
        self.socket_path = Path(socket_path)
        self.metering = metering
        self._captures = http1.CapturePool(capture_pool_bytes)  # request bodies kept for the meter, all tunnels
        self.policy = policy
        self.log = EgressLog(Path(log_path), max_refusal_lines=max_refusal_lines, max_tunnel_lines=max_tunnel_lines)
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self.head_timeout = head_timeout
        self.max_connections = max_connections
        self._accepted = 0  # connections so far; each one's number in the log
        self._socket_inode: int | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = asyncio.Event()
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()  # every connection being served
        self._tunnels: set[asyncio.Task[None]] = set()  # those relaying a tunnel (they end themselves at close)
        self._held = 0  # connections holding one of the max_connections slots

    # ---- lifecycle

    def __enter__(self) -> EgressProxy:
        return self if self._thread is not None else self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def start(self) -> EgressProxy:
        """Bind the socket (mode 0666) and serve from an event loop in a background thread."""
        if self._thread is not None:
            raise M4AgentError("this egress proxy was already started; make a new one per run")
        path = self.socket_path
        if not path.parent.is_dir():
            raise M4AgentError(f"egress socket folder {path.parent} does not exist; create it before the proxy")
        if len(os.fsencode(path)) > _MAX_UNIX_PATH:
            raise M4AgentError(
                f"egress socket path {path} is longer than {_MAX_UNIX_PATH} bytes, the Unix socket limit; "
                "use a shorter run folder (e.g. under /tmp)"
            )
        try:
            existing = path.lstat()
        except FileNotFoundError:
            existing = None
        if existing is not None:
            if not stat.S_ISSOCK(existing.st_mode):
                raise M4AgentError(f"{path} exists and is not a socket; remove it or choose another run folder")
            path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(path))
            os.chmod(path, 0o666)
            listener.listen(64)
        except OSError as exc:
            listener.close()
            raise M4AgentError(f"cannot listen on egress socket {path}: {exc}") from exc
        self._socket_inode = path.lstat().st_ino
        self._loop = asyncio.new_event_loop()
        resolver = ThreadPoolExecutor(RESOLVER_THREADS, thread_name_prefix="m4agent-egress-resolve")
        self._loop.set_default_executor(resolver)
        self._thread = threading.Thread(target=self._run, args=(listener, resolver), name="m4agent-egress",
                                        daemon=True)
        self._thread.start()
        return self

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Stop accepting, end every tunnel, write the summary line, remove the socket file.

        Waits at most ``timeout`` seconds for the proxy's thread (it needs about
        ``_STOP_GRACE_S``); a lookup still running in a resolver thread is abandoned.
        Safe to call twice.
        """
        if self._thread is None or self._closing:
            return
        self._closing = True
        assert self._loop is not None
        try:
            self._loop.call_soon_threadsafe(self._stopping.set)
        except RuntimeError:  # the loop has already ended
            pass
        try:
            if self.socket_path.lstat().st_ino == self._socket_inode:
                self.socket_path.unlink()
        except FileNotFoundError:
            pass
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """Whether the proxy's thread is still serving."""
        return self._thread is not None and self._thread.is_alive()

    def _run(self, listener: socket.socket, resolver: ThreadPoolExecutor) -> None:
        assert self._loop is not None
        try:
            self._loop.run_until_complete(self._main(listener))
        finally:
            resolver.shutdown(wait=False, cancel_futures=True)
            self._loop.close()

    async def _main(self, listener: socket.socket) -> None:
        server = await asyncio.start_unix_server(self._accept, sock=listener, limit=http1.MAX_HEAD_BYTES)
        await self._stopping.wait()
        server.close()
        # Tunnels see the stop and end with a close line; a head being read or an upstream
        # connect under way asked for nothing yet and is cut short.
        for task in self._tasks - self._tunnels:
            task.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=_STOP_GRACE_S)
        left = list(self._tasks)
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        self.log.summary(self._accepted)

    # ---- serving

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._accepted += 1
        conn = self._accepted
        try:
            if self._held >= self.max_connections:
                self._refuse(writer, conn, _NO_REQUEST, 503, REFUSED_CAPACITY,
                             f"more than {self.max_connections} connections open at once")
                return
            self._held += 1
            try:
                await self._serve(reader, writer, conn)
            finally:
                self._held -= 1
        except OSError:  # the agent's side reset or broke the connection: nothing more to answer
            pass
        finally:
            self._tasks.discard(task)
            await shut(writer)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: int) -> None:
        head, kind, problem = await self._read_head(reader)
        if kind is not None and problem is not None:
            self._refuse(writer, conn, _NO_REQUEST, 400, kind, problem)
        elif head is not None:
            request = parse_head(head)
            if request.problem is not None:
                self._refuse(writer, conn, request, 400, REFUSED_MALFORMED, request.problem)
            elif request.method != "CONNECT":
                self._refuse(writer, conn, request, 403, REFUSED_PLAIN_HTTP,
                             "plain HTTP refused; only CONNECT tunnels are allowed")
            else:
                await self._tunnel(reader, writer, conn, request)

    async def _read_head(self, reader: asyncio.StreamReader) -> tuple[bytes | None, str | None, str | None]:
        """The head up to its blank line, or ``(None, refusal kind, problem)``.

        ``(None, None, None)`` when the client closed before sending anything: no
        request was made, nothing is logged. The bytes after the head stay in ``reader``.
        """
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.head_timeout)
        except TimeoutError:
            return None, REFUSED_HEAD_TIMEOUT, "request head incomplete after the head timeout"
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                return None, None, None
            return None, REFUSED_MALFORMED, "connection closed inside the request head"
        except asyncio.LimitOverrunError:
            return None, REFUSED_MALFORMED, "request head over 16 KiB"
        if len(head) > MAX_HEAD_BYTES:
            return None, REFUSED_MALFORMED, "request head over 16 KiB"
        return head[:-4], None, None

    def _refuse(self, writer: asyncio.StreamWriter, conn: int, request: _Request, status: int, kind: str,
                reason: str) -> None:
        self.log.refusal(kind, self._decision(conn, request, allowed=False, status=status, reason=reason))
        writer.write(_answer(status, reason))

    @staticmethod
    def _decision(conn: int, request: _Request, *, allowed: bool, status: int, reason: str) -> dict[str, Any]:
        return {"event": "decision", "conn": conn, "method": request.method, "host": request.host,
                "port": request.port, "allowed": allowed, "status": status, "reason": reason}

    async def _tunnel(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: int,
                      request: _Request) -> None:
        assert request.host is not None and request.port is not None
        allowed, reason = self.policy.decide(request.host, request.port)
        if not allowed:
            self._refuse(writer, conn, request, 403, REFUSED_POLICY, reason)
            return
        metered = self.metering is not None and not self.policy.is_extra(request.host, request.port)
        address, port = self.policy.upstream(request.host, request.port)
        tls: dict[str, Any] = {}
        if metered:
            assert self.metering is not None
            tls = {"ssl": self.metering.upstream, "server_hostname": request.host}
        try:
            upstream = await asyncio.wait_for(asyncio.open_connection(address, port, limit=http1.MAX_HEAD_BYTES,
                                                                      **tls), self.connect_timeout)
        except (OSError, TimeoutError) as exc:
            detail = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)[:120] or type(exc).__name__
            self.log.tunnel(self._decision(conn, request, allowed=True, status=502,
                                           reason=f"{reason}; upstream unreachable: {detail}"))
            writer.write(_answer(502, f"upstream unreachable: {detail}"))
            return
        task = asyncio.current_task()
        assert task is not None
        started = time.monotonic()
        tally = intercept.Tally()
        why = "stopped"  # unless the relay returns: only a cut-short close ends it otherwise
        self._tunnels.add(task)
        try:
            self.log.tunnel(self._decision(conn, request, allowed=True, status=200,
                                           reason=reason + ("; metered" if metered else "")))
            writer.write(_answer(200, reason))
            if metered:
                why = await self._metered(reader, writer, upstream, conn, request, tally)
            else:
                tally.bytes_up, tally.bytes_down, why = await relay(
                    (reader, writer), upstream, idle_timeout=self.idle_timeout, stop=self._stopping)
        finally:
            self._tunnels.discard(task)
            self.log.tunnel(
                {
                    "event": "close",
                    "conn": conn,
                    "method": request.method,
                    "host": request.host,
                    "port": request.port,
                    "allowed": True,
                    "reason": why,
                    "bytes_up": tally.bytes_up,
                    "bytes_down": tally.bytes_down,
                    "duration_s": round(time.monotonic() - started, 3),
                } | ({"exchanges": tally.exchanges} if metered else {})
            )
            await shut(upstream[1])  # after the close line: a cut-short close must not lose it

    async def _metered(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                       upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter], conn: int,
                       request: _Request, tally: intercept.Tally) -> str:
        """End the CLI's TLS with the campaign CA's certificate for the host, then relay and meter its
        exchanges until a side ends or the proxy stops; why it ended."""
        assert self.metering is not None and request.host is not None
        try:
            await writer.drain()
            await asyncio.wait_for(writer.start_tls(self.metering.ca.server_context(request.host)),
                                   self.head_timeout)
        except (OSError, TimeoutError) as exc:  # the client refused our certificate, or hung up
            return f"agent TLS handshake failed: {str(exc)[:120] or type(exc).__name__}"
        serving = asyncio.ensure_future(intercept.serve((reader, writer), upstream, request.host,
                                                        self.metering.meter, tally,
                                                        idle_timeout=self.idle_timeout, pool=self._captures))
        stopper = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({serving, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopper.cancel()
        if not serving.done():
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)
            return "stopped"
        try:
            return serving.result()
        except intercept.AgentFramingError as exc:
            self.log.refusal(REFUSED_MALFORMED, self._decision(conn, request, allowed=False, status=400,
                                                              reason=f"not HTTP/1.1 inside the tunnel: {exc}"))
            return "refused: not HTTP/1.1"
        except OSError:
            return "reset"
