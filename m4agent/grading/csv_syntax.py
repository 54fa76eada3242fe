"""Where a CSV's header and data are, read as pandas 2.3.1's C tokenizer reads them (M4Bench's reader).

M4Bench reads an output with ``pandas.read_csv(path, keep_default_na=False,
na_values=[""])``, pandas pinned at 2.3.1. Its tokenizer decides a broken
file's fate, and these are its rules restated (each is a case of the grading
tests' malformed corpus, with M4Bench's verdict):

- a UTF-8 byte-order mark at the start is dropped; lines holding nothing or only
  spaces and tabs are skipped anywhere, before the header too;
- a field is quoted only when a quote opens it; inside, ``""`` is a quote and
  the field runs until a lone quote, across line ends; text after the closing
  quote joins the field; a quote inside an unquoted field is text;
- a file that ends inside a quoted field cannot be read (``EOF inside string``);
- a field ends at its first NUL byte (the C reader keeps C strings: ``7\\x00``
  is read as ``7``, a lone NUL as an empty, missing cell; pandas 3 keeps the
  NUL, M4Bench's pinned pandas does not);
- when the first data record has more fields than the header, the extra
  leading fields of every record are the row index (a trailing comma on the
  data rows shifts every column); later records may be shorter (padded) but
  not longer (``Expected n fields``).

The functions work on the file's bytes (a ``bytes`` or an ``mmap``) with
``find`` and compiled patterns, so a field of megabytes costs no Python loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

HEADER_LIMIT = 64 << 20  # a header record longer than this is not read (pandas would; see Preamble)
BOM = b"\xef\xbb\xbf"

_BLANK_LINES = re.compile(rb"(?:[ \t]*(?:\r\n|\r|\n))*(?:[ \t]+\Z)?")
_UNQUOTED = re.compile(rb"[^,\r\n]*")
# a quote that opens a field (at the start, after a delimiter or a line end), the quoted text, the closer
_QUOTED_FIELD = re.compile(rb'(?<![^,\r\n])"(?:[^"]|"")*(")?')


class Buffer(Protocol):
    def find(self, sub: bytes, start: int = ..., end: int = ...) -> int: ...
    def __getitem__(self, index: slice) -> bytes: ...
    def __len__(self) -> int: ...


class CsvSyntaxError(Exception):
    """The file cannot be read as pandas reads it; the message is the reason."""


@dataclass(frozen=True)
class Preamble:
    """What comes before the data: the header's fields (as text), where the data records start,
    and how many leading fields of each record pandas takes as the row index."""

    header: list[str]
    data_offset: int
    index_columns: int


def _line(buffer: Buffer, position: int) -> int:
    """The 1-based line number of byte ``position``."""
    return bytes(buffer[:position]).count(b"\n") + 1


def _record(buffer: Buffer, position: int, end: int, keep: bool = True) -> tuple[list[bytes], int]:
    """The fields of the record starting at ``position`` (empty texts unless ``keep``) and where the
    next record starts; raises CsvSyntaxError for a quote never closed."""
    fields: list[bytes] = []
    while True:
        if position < end and buffer[position:position + 1] == b'"':
            opened, parts, cursor = position, [], position + 1
            while True:
                quote = buffer.find(b'"', cursor, end)
                if quote < 0:
                    raise CsvSyntaxError(f"CSV parse error: EOF inside string (a quote opened on line "
                                         f"{_line(buffer, opened)} is never closed)")
                if buffer[quote + 1:quote + 2] == b'"':
                    if keep:
                        parts.append(bytes(buffer[cursor:quote + 1]))
                    cursor = quote + 2
                    continue
                if keep:
                    parts.append(bytes(buffer[cursor:quote]))
                position = quote + 1
                break
            rest = _UNQUOTED.match(buffer, position, end)  # type: ignore[call-overload]
            if keep:
                parts.append(rest.group())
            fields.append(b"".join(parts))
            position = rest.end()
        else:
            text = _UNQUOTED.match(buffer, position, end)  # type: ignore[call-overload]
            fields.append(text.group() if keep else b"")
            position = text.end()
        if position >= end:
            return fields, end
        separator = buffer[position:position + 2]
        if separator[:1] == b",":
            position += 1
            continue
        return fields, position + (2 if separator == b"\r\n" else 1)


def skip_blank_lines(buffer: Buffer, position: int) -> int:
    """The first position at or after ``position`` that is not on a blank (or spaces-only) line."""
    return _BLANK_LINES.match(buffer, position).end()  # type: ignore[call-overload]


def field_text(raw: bytes) -> str:
    """A field's text as pandas 2.3.1 reads it: up to its first NUL byte, UTF-8 (raises
    UnicodeDecodeError)."""
    return raw.split(b"\x00", 1)[0].decode("utf-8")


def read_preamble(buffer: Buffer) -> Preamble:
    """The header and where the data starts; raises CsvSyntaxError (no header, a header quote never
    closed, a header not UTF-8 or longer than HEADER_LIMIT)."""
    size = len(buffer)
    start = len(BOM) if buffer[:len(BOM)] == BOM else 0
    start = skip_blank_lines(buffer, start)
    if start >= size:
        raise CsvSyntaxError("no columns to parse from file (empty or blank)")
    limit = min(size, start + HEADER_LIMIT)
    raw, data_offset = _record(buffer, start, limit)
    if data_offset >= limit and limit < size:
        raise CsvSyntaxError(f"the header is longer than {HEADER_LIMIT} bytes; it is not read")
    header = []
    for raw_field in raw:
        try:
            header.append(field_text(raw_field))
        except UnicodeDecodeError as exc:
            raise CsvSyntaxError(f"not UTF-8: invalid byte in the header at offset {start + exc.start}") from None
    first = skip_blank_lines(buffer, data_offset)
    index_columns = 0
    if first < size:
        fields, _ = _record(buffer, first, size, keep=False)
        index_columns = max(0, len(fields) - len(header))
    return Preamble(header, data_offset, index_columns)


def unclosed_quote(buffer: Buffer, start: int) -> str | None:
    """Why the data from ``start`` cannot be read when a quoted field in it is never closed (pandas:
    ``EOF inside string``), else None. Costs one scan of the quoted fields, none without quotes."""
    if buffer.find(b'"', start) < 0:
        return None
    last = None
    for last in _QUOTED_FIELD.finditer(buffer, start):  # type: ignore[call-overload]  # noqa: B007
        pass
    if last is None or last.group(1) is not None:
        return None
    return (f"CSV parse error: EOF inside string (a quote opened on line {_line(buffer, last.start())} "
            "is never closed)")


def has_nul(buffer: Buffer, start: int) -> bool:
    """Whether the data from ``start`` holds a NUL byte (its fields are then cut at it)."""
    return buffer.find(b"\x00", start) >= 0
