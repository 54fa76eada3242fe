"""Redaction of the secrets given to an attempt: every spelling, wherever a chunk boundary falls."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from m4agent.harness import redact

SECRET = "sk-test-0123456789abcdef"


@pytest.mark.parametrize("spelling", [SECRET.encode(), SECRET[::-1].encode(), SECRET.encode().hex().encode(),
                                      SECRET.encode().hex().upper().encode(), base64.b64encode(SECRET.encode()),
                                      base64.b64encode(SECRET.encode() + b"\n")])
def test_every_spelling_of_a_secret_is_redacted(spelling: bytes) -> None:
    assert redact.Redactor([SECRET]).bytes(b"before " + spelling + b" after") == b"before [redacted] after"


@pytest.mark.parametrize("offset", [-30, -12, -1, 0, 1])
def test_a_secret_split_by_the_read_chunks_is_redacted_in_a_file(tmp_path: Path, offset: int) -> None:
    path = tmp_path / "trace.log"
    start = redact._CHUNK + offset  # the secret straddles (or touches) the first chunk's end
    path.write_bytes(b"x" * start + SECRET.encode() + b"y" * 100)
    assert redact.Redactor([SECRET]).file(path)
    data = path.read_bytes()
    assert SECRET.encode() not in data and data == b"x" * start + b"[redacted]" + b"y" * 100


def test_short_values_are_not_secrets_and_a_clean_file_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "trace.log"
    path.write_bytes(b"abc 1234567")
    before = path.stat().st_mtime_ns
    assert not redact.Redactor(["abc", "1234567"]).file(path)
    assert path.read_bytes() == b"abc 1234567" and path.stat().st_mtime_ns == before
