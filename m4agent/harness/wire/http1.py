"""HTTP/1.1 framing for the metering proxy: message heads, and bodies relayed while they are captured.

The proxy sits between an agent's CLI and the provider with TLS terminated on both
sides, so it sees the plain HTTP/1.1 stream (ALPN offers nothing else). It relays each
message as it arrives, chunk by chunk, so a streamed answer (server-sent events) reaches
the CLI as fast as without the proxy, and keeps a bounded copy of each body for the
meter. Framing follows RFC 9112: a request body is chunked or has a Content-Length (both,
or a malformed length, is refused: it is how requests are smuggled); a response body is
absent (HEAD, 1xx, 204, 304), chunked, of a Content-Length, or runs until the upstream
closes.

Every read has a deadline and every head and chunk line a size cap: the agent's side is
hostile input, and so, as far as the proxy's resources go, is the upstream's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

MAX_HEAD_BYTES = 64 * 1024
MAX_LINE_BYTES = 4 * 1024  # a chunk-size line or a trailer line
CAPTURE_BYTES = 16 * 1024 * 1024  # per body kept for the meter; the rest is relayed, not kept
CAPTURE_POOL_BYTES = 64 * 1024 * 1024  # all bodies of one proxy kept at once (64 connections could ask 1 GiB)
_PIECE = 64 * 1024


class FramingError(Exception):
    """A message that is not HTTP/1.1 as RFC 9112 frames it; the connection cannot go on."""


@dataclass(frozen=True)
class Head:
    """A message head: its first line split in three, and its header fields in order."""

    first: tuple[str, str, str]  # request: method, target, version; response: version, status, reason
    headers: tuple[tuple[str, str], ...]

    def get(self, name: str) -> str | None:
        """The field's values joined by commas (RFC 9110 5.3), or None when absent."""
        values = [value for key, value in self.headers if key.lower() == name]
        return ", ".join(values) if values else None

    def tokens(self, name: str) -> set[str]:
        """A list-valued field's tokens, lower case (``Connection: keep-alive, Upgrade``)."""
        value = self.get(name)
        return {part.strip().lower() for part in value.split(",") if part.strip()} if value else set()

    def encode(self) -> bytes:
        lines = [" ".join(self.first)] + [f"{key}: {value}" for key, value in self.headers]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def replacing(self, name: str, value: str | None) -> Head:
        """The same head with every ``name`` field dropped and, unless ``value`` is None, one set to it."""
        kept = tuple((k, v) for k, v in self.headers if k.lower() != name)
        return Head(self.first, kept + (((name.title(), value),) if value is not None else ()))


class CapturePool:
    """The bytes every request capture of one proxy may hold at once: the agent opens up to 64
    connections, and bodies it sends in all of them at the same time must not take the harness's
    memory. Answers are the provider's bytes, kept per body only, so the agent cannot starve the
    meter's view of them."""

    def __init__(self, limit: int = CAPTURE_POOL_BYTES) -> None:
        self.free = limit


@dataclass
class Capture:
    """A bounded copy of a body: the first ``limit`` bytes (fewer when the pool runs dry), and whether
    more went by. ``release`` gives its bytes back to the pool once the exchange is read."""

    limit: int = CAPTURE_BYTES
    pool: CapturePool | None = None
    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    total: int = 0

    def add(self, piece: bytes) -> None:
        self.total += len(piece)
        room = self.limit - len(self.data)
        if self.pool is not None:
            room = min(room, self.pool.free)
        taken = piece[:max(room, 0)]
        self.data += taken
        if self.pool is not None:
            self.pool.free -= len(taken)
        if len(taken) < len(piece):
            self.truncated = True

    def release(self) -> None:
        if self.pool is not None:
            self.pool.free += len(self.data)
        self.data = bytearray()


async def read_head(reader: asyncio.StreamReader, timeout: float) -> bytes | None:
    """The bytes of the next head, up to and without its blank line; None at a clean end of stream.

    Raises ``FramingError`` for a head over ``MAX_HEAD_BYTES`` or cut short, and
    ``TimeoutError`` when it does not complete within ``timeout``.
    """
    try:
        raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise FramingError("connection closed inside a message head") from None
    except asyncio.LimitOverrunError:
        raise FramingError(f"message head over {MAX_HEAD_BYTES} bytes") from None
    if len(raw) > MAX_HEAD_BYTES:
        raise FramingError(f"message head over {MAX_HEAD_BYTES} bytes")
    return raw[:-4]


def parse_head(raw: bytes, *, request: bool) -> Head:
    """Split a head into its first line and fields; ``FramingError`` when it is not HTTP/1.1."""
    try:
        text = raw.decode("latin-1")
    except UnicodeDecodeError:  # latin-1 decodes every byte; kept for clarity of intent
        raise FramingError("message head is not text") from None
    lines = text.split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) != 3:
        raise FramingError("malformed first line")
    version = parts[2] if request else parts[0]
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        raise FramingError(f"not HTTP/1.1 ({version[:20]!r})")
    if not request and not (parts[1].isdigit() and len(parts[1]) == 3):
        raise FramingError("malformed status code")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip() or any(c in name for c in " \t"):
            raise FramingError("malformed header field")
        headers.append((name, value.strip()))
    return Head((parts[0], parts[1], parts[2]), tuple(headers))


def request_framing(head: Head) -> tuple[str, int]:
    """How a request's body is framed: ``("chunked", 0)``, ``("length", n)`` or ``("none", 0)``."""
    coding = head.get("transfer-encoding")
    length = head.get("content-length")
    if coding is not None:
        if length is not None:
            raise FramingError("both Transfer-Encoding and Content-Length")
        if coding.strip().lower() != "chunked":
            raise FramingError(f"unsupported transfer coding {coding[:40]!r}")
        return "chunked", 0
    if length is not None:
        return "length", _length(length)
    return "none", 0


def response_framing(head: Head, method: str) -> tuple[str, int]:
    """How a response's body is framed: as ``request_framing``, or ``("close", 0)``: until the upstream closes."""
    status = int(head.first[1])
    if method == "HEAD" or 100 <= status < 200 or status in (204, 304):
        return "none", 0
    coding = head.get("transfer-encoding")
    if coding is not None:
        if coding.strip().lower().split(",")[-1].strip() != "chunked":
            return "close", 0
        return "chunked", 0
    length = head.get("content-length")
    if length is not None:
        return "length", _length(length)
    return "close", 0


def _length(text: str) -> int:
    values = {part.strip() for part in text.split(",")}
    if len(values) != 1:
        raise FramingError("conflicting Content-Length values")
    value = values.pop()
    if not value.isascii() or not value.isdigit() or len(value) > 15:
        raise FramingError("malformed Content-Length")
    return int(value)


async def relay_body(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, framing: tuple[str, int],
                     capture: Capture, timeout: float) -> None:
    """Copy one body from ``reader`` to ``writer`` as it arrives, keeping its payload in ``capture``.

    Chunked bodies are relayed as they were framed (sizes, extensions and trailers
    included) and captured without their framing. Each read waits at most ``timeout``.
    """
    kind, length = framing
    if kind == "none":
        return
    if kind == "length":
        await _copy(reader, writer, length, capture, timeout)
    elif kind == "close":
        while piece := await asyncio.wait_for(reader.read(_PIECE), timeout):
            writer.write(piece)
            capture.add(piece)
            await writer.drain()
    else:
        await _relay_chunked(reader, writer, capture, timeout)


async def _relay_chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, capture: Capture,
                         timeout: float) -> None:
    while True:
        line = await _line(reader, timeout)
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16) if size_text and len(size_text) <= 15 else -1
        except ValueError:
            size = -1
        if size < 0:
            raise FramingError("malformed chunk size")
        writer.write(line)
        if size == 0:
            while True:  # trailer fields, then the blank line that ends the body
                trailer = await _line(reader, timeout)
                writer.write(trailer)
                if trailer == b"\r\n":
                    await writer.drain()
                    return
        await _copy(reader, writer, size, capture, timeout)
        end = await asyncio.wait_for(reader.readexactly(2), timeout)
        if end != b"\r\n":
            raise FramingError("chunk not followed by CRLF")
        writer.write(end)


async def _line(reader: asyncio.StreamReader, timeout: float) -> bytes:
    try:
        line = await asyncio.wait_for(reader.readuntil(b"\r\n"), timeout)
    except asyncio.IncompleteReadError:
        raise FramingError("connection closed inside a chunked body") from None
    except asyncio.LimitOverrunError:
        raise FramingError("chunk line too long") from None
    if len(line) > MAX_LINE_BYTES:
        raise FramingError("chunk line too long")
    return line


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, length: int, capture: Capture,
                timeout: float) -> None:
    left = length
    while left > 0:
        piece = await asyncio.wait_for(reader.read(min(left, _PIECE)), timeout)
        if not piece:
            raise FramingError("connection closed inside a body")
        writer.write(piece)
        capture.add(piece)
        left -= len(piece)
        await writer.drain()
