"""Bodies as documents: Content-Encoding undone within a size cap, then JSON, SSE or NDJSON read.

A request body is the agent's to shape (Codex sends zstd), so decoding is bounded: at
most ``MAX_DECODED`` bytes come out of any body, whatever its compressed size says,
and a body cut there is marked (``Decoded.cut``). Nothing here raises on bad bytes: an
unknown encoding or a broken stream gives the bytes decoded so far and a note.
"""

from __future__ import annotations

import io
import json
import zlib
from dataclasses import dataclass
from typing import Any

import zstandard

MAX_DECODED = 64 * 1024 * 1024
_ZSTD_WINDOW = 1 << 25  # 32 MiB: zstd's own default refuses only windows over 128 MiB
_STEP = 1 << 20

Doc = tuple[str | None, Any]  # (SSE event name or None, the parsed JSON value)


@dataclass(frozen=True)
class Decoded:
    data: bytes
    cut: bool = False          # the decoded body passed MAX_DECODED and was cut there
    problem: str | None = None  # why it could not be fully decoded (the encoding's own words)


def _inflate(data: bytes, wbits: int, out: bytearray, limit: int) -> bool:
    """gzip (every member) or zlib/raw deflate into ``out``, at most ``limit`` bytes; True: cut there."""
    while data:
        engine = zlib.decompressobj(wbits)
        pending = data
        while pending and not engine.eof:
            out += engine.decompress(pending, limit + 1 - len(out))
            if len(out) > limit:
                return True
            pending = engine.unconsumed_tail
        if not engine.eof:
            raise zlib.error("the compressed stream ends early")
        data = engine.unused_data.lstrip(b"\0") if wbits == 31 else b""
    return False


def _unzstd(data: bytes, out: bytearray, limit: int) -> bool:
    reader = zstandard.ZstdDecompressor(max_window_size=_ZSTD_WINDOW).stream_reader(
        io.BytesIO(data), read_across_frames=True)
    while len(out) <= limit:
        piece = reader.read(min(_STEP, limit + 1 - len(out)))
        if not piece:
            return False
        out += piece
    return True


def _undo(coding: str, data: bytes, out: bytearray, limit: int) -> bool:
    if coding in ("gzip", "x-gzip"):
        return _inflate(data, 31, out, limit)
    if coding == "deflate":
        try:
            return _inflate(data, 15, out, limit)
        except zlib.error:  # some clients send raw deflate under this name
            out.clear()
            return _inflate(data, -15, out, limit)
    return _unzstd(data, out, limit)


def decode(body: bytes, content_encoding: str, limit: int = MAX_DECODED) -> Decoded:
    """``body`` with its Content-Encoding (``gzip``, ``deflate``, ``zstd``, in any chain) undone.

    A stream that breaks or ends early gives what it decoded up to there, with the problem.
    """
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    data = body
    for coding in reversed(codings):
        if coding == "identity":
            continue
        if coding not in ("gzip", "x-gzip", "deflate", "zstd"):
            return Decoded(data, problem=f"unknown content-encoding {coding[:40]!r}")
        out = bytearray()
        try:
            cut = _undo(coding, data, out, limit)
        except (zlib.error, zstandard.ZstdError, ValueError) as exc:
            return Decoded(bytes(out[:limit]), problem=f"{coding} body not fully decodable: {str(exc)[:120]}")
        if cut:
            return Decoded(bytes(out[:limit]), cut=True, problem=f"{coding} body decodes past {limit} bytes: cut")
        data = bytes(out)
    if len(data) > limit:
        return Decoded(data[:limit], cut=True, problem=f"body past {limit} bytes: cut")
    return Decoded(data)


def load_json(data: bytes | str) -> Any:
    """The JSON value of ``data``, or None when it is not JSON (never raises)."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _sse(text: str) -> list[Doc]:
    docs: list[Doc] = []
    event: str | None = None
    lines: list[str] = []
    for line in text.splitlines() + [""]:
        if not line:
            if lines:
                payload = "\n".join(lines)
                value = payload if payload.strip() == "[DONE]" else load_json(payload)
                if value is not None:
                    docs.append((event, value))
            event, lines = None, []
        elif line.startswith("data:"):
            lines.append(line[5:].removeprefix(" "))
        elif line.startswith("event:"):
            event = line[6:].strip()
    return docs


def documents(data: bytes, content_type: str = "") -> list[Doc]:
    """The JSON documents of a body: SSE events, NDJSON lines, a JSON array's items or one JSON value.

    A value that does not parse is left out; an empty list means nothing readable.
    """
    text = data.decode("utf-8", errors="replace")
    head = text.lstrip()[:6]
    if "event-stream" in content_type.lower() or head.startswith(("data:", "event:", ":")):
        return _sse(text)
    whole = load_json(text) if text.strip() else None
    if isinstance(whole, list):  # Gemini streams a JSON array without alt=sse
        return [(None, item) for item in whole]
    if whole is not None:
        return [(None, whole)]
    lines = [load_json(line) for line in text.splitlines() if line.strip()]
    return [(None, value) for value in lines if value is not None]
