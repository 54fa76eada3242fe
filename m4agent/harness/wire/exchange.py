"""One captured HTTP exchange, as the metering proxy saw it on the wire.

The proxy fills it (TLS terminated, HTTP/1.1 framed, bodies de-chunked but not
decoded); ``meter`` says what it was. It holds what was sent and received, nothing
inferred, so a reading can be redone later with a better reader.
"""

from __future__ import annotations

from dataclasses import dataclass

Headers = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Exchange:
    host: str                 # the host the agent asked for (CONNECT target, normalised)
    method: str
    path: str                 # request target without the query string
    query: str                # the query string ('' if none); may hold a key (Gemini ?key=): never log it
    request_headers: Headers
    request_body: bytes       # as sent (de-chunked; Content-Encoding NOT decoded)
    status: int | None        # None: no response came (upstream closed or stalled)
    response_headers: Headers
    response_body: bytes      # de-chunked; Content-Encoding NOT decoded
    truncated: bool = False   # a body was longer than the capture cap and was cut


def header(headers: Headers, name: str) -> str:
    """The first value of header ``name`` (any case), or ''."""
    wanted = name.lower()
    return next((value for key, value in headers if key.lower() == wanted), "")
