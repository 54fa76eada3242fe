"""Secrets given to an attempt never reach a record: every spelling of them is redacted from what the harness keeps.

An agent holds its provider keys (the secrets file) and can print them, write them to a file,
or encode them first. The harness's records (the trace, the setup log, the egress log, the
kept workspace files, the trajectory and the pages built from them) are meant to be shared, so
every value of ``MIN_CHARS`` or more is searched in the forms an agent's tools make of it at
once: as it is, reversed, hexadecimal (lower and upper case), and base64 (standard and URL-safe,
of the value alone and with the newline ``echo`` adds) and replaced by ``[redacted]``.

The agent's ``output.csv`` is graded, so it is never rewritten: the contamination lint finds the
same spellings there (``integrity``) and the attempt is a policy violation.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

MIN_CHARS = 8  # shorter "secret values" (flags, empty strings) would match everywhere
MARK = b"[redacted]"
_CHUNK = 1024 * 1024


def spellings(secrets: Iterable[str]) -> list[bytes]:
    """Every form of every secret value that is searched for, longest first (so no form hides a longer one)."""
    found: set[bytes] = set()
    for value in secrets:
        if len(value) < MIN_CHARS:
            continue
        raw = value.encode("utf-8")
        found.update({raw, raw[::-1], raw.hex().encode(), raw.hex().upper().encode()})
        for data in (raw, raw + b"\n"):
            for encoded in (base64.b64encode(data), base64.urlsafe_b64encode(data)):
                found.update({encoded, encoded.rstrip(b"=")})
    return sorted(found, key=lambda form: (-len(form), form))


class Redactor:
    """Redacts the spellings of a fixed set of secret values from bytes and files."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self.forms = spellings(secrets)
        self.overlap = max((len(form) for form in self.forms), default=1) - 1

    def __bool__(self) -> bool:
        return bool(self.forms)

    def bytes(self, data: bytes) -> bytes:
        for form in self.forms:
            data = data.replace(form, MARK)
        return data

    def file(self, path: Path) -> bool:
        """Rewrite ``path`` (a harness-written regular file) without the secrets; whether it held any.

        Read in chunks with an overlap as long as the longest form, so a secret split between two
        chunks is found; the file is replaced whole (written beside it, then renamed)."""
        if not self.forms or not path.is_file() or path.is_symlink():
            return False
        found = False
        partial = path.with_name(f".{path.name}.redact.tmp")
        with open(path, "rb") as source, open(partial, "wb") as target:
            carry = b""
            while chunk := source.read(_CHUNK):
                data = carry + chunk
                clean = self.bytes(data)
                found |= clean != data
                keep = min(self.overlap, len(clean))  # the tail that could begin a form split by the chunking
                target.write(clean[:len(clean) - keep])
                carry = clean[len(clean) - keep:]
            target.write(self.bytes(carry))
        if found:
            os.replace(partial, path)
        else:
            partial.unlink()
        return found

    def tree(self, root: Path, untouched: Collection[str] = ()) -> list[str]:
        """Redact every regular file under ``root`` but the ``untouched`` ones (paths relative to ``root``),
        never following a link; the files that held a secret."""
        held = []
        for folder, _dirs, files in os.walk(root):
            for name in files:
                relative = (Path(folder) / name).relative_to(root).as_posix()
                if relative not in untouched and self.file(Path(folder) / name):
                    held.append(relative)
        return sorted(held)
