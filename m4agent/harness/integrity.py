"""Integrity checks of an attempt: the egress verdict and the contamination lint (the canary joins later).

Each check turns something the agent left behind into a list of violations; any
violation makes the attempt's outcome ``policy_violation`` (``records.Outcome``).

- ``egress_verdict`` reads the egress proxy's JSONL log (``egress.EgressLog``): every
  event not allowed is a violation, the proxy's closing summary too when it counts
  refusals (it holds those past the log's line budget), and so is a line that is not
  a well-formed event (fail closed: a log we cannot read proves nothing).
- ``lint_workspace`` scans the workspace after the agent, as M4Bench's
  ``lint_run_contamination`` does (``shared/HARNESS.md`` §1.10), for secret-shaped
  strings, the run's own secret values, host paths, extra database files and a copy
  of the truth export; and it reports links instead of following them. It never
  follows a link, never opens anything but a regular file (FIFOs and devices are not
  read, so they cannot block it), reads a bounded prefix of each file, and matches
  paths and secrets as literal bytes, never as patterns. Excerpts are redacted: a
  violation never repeats a secret it found.

This module needs no Docker; the filesystem canary, which does, has its own section
at the end.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from m4agent import layout
from m4agent.errors import M4AgentError
from m4agent.harness import redact
from m4agent.harness.egress import EgressPolicy

# --------------------------------------------------------------------------- egress verdict


def egress_verdict(log_path: Path, policy: EgressPolicy | None = None) -> tuple[bool, list[dict[str, Any]]]:
    """``(clean, violations)`` from an egress log: clean when every event was allowed.

    A violation is the event itself plus its ``line`` number; a line that is not a
    JSON object with a boolean ``allowed`` becomes ``{"line", "malformed": True,
    "reason", "excerpt"}``. The proxy's ``summary`` line is not allowed when it counts
    any refusal, written as a line or past the log's budget; when it is a violation it
    comes first, as the one violation that counts them all, so a bounded record
    (``records.AttemptRecord.add_violations``) keeps it. With ``policy``, an allowed
    decision or close whose host and port the policy does not allow is a violation too
    (a log written under another policy). A missing log is the harness's failure, not
    the agent's: ``M4AgentError``.
    """
    try:
        raw = Path(log_path).read_bytes()
    except FileNotFoundError as exc:
        raise M4AgentError(
            f"egress log {log_path} is missing: the proxy did not run; treat the attempt as an infrastructure error"
        ) from exc
    tallies: list[dict[str, Any]] = []
    violations: list[dict[str, Any]] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict) or not isinstance(event.get("allowed"), bool):
            excerpt = line[:80].decode("utf-8", "replace")
            violations.append({"line": number, "malformed": True, "reason": "not an egress event", "excerpt": excerpt})
        elif event.get("event") == "summary":
            if not event["allowed"]:
                tallies.append({**event, "line": number})
        elif not event["allowed"]:
            violations.append({**event, "line": number})
        elif policy is not None and not _policy_allows(policy, event):
            violations.append({**event, "line": number, "reason": "allowed by the proxy but not by the run's policy"})
    found = tallies + violations
    return not found, found


def _policy_allows(policy: EgressPolicy, event: dict[str, Any]) -> bool:
    host, port = event.get("host"), event.get("port")
    return isinstance(host, str) and isinstance(port, int) and policy.decide(host, port)[0]


# --------------------------------------------------------------------------- contamination lint

# M4Bench's text extensions (compared in lower case, so `.R` counts as `.r`). Files with
# another extension are scanned too when their first bytes hold no NUL (they are text
# all the same); binary files are not.
TEXT_SUFFIXES = frozenset({".csv", ".json", ".jsonl", ".md", ".py", ".r", ".sh", ".sql", ".toml", ".txt", ".yaml", ".yml"})
MAX_SCAN_BYTES = 32 * 1024 * 1024  # per file; secrets beyond this prefix of a huge file are not seen
MAX_FILES = 50_000  # a workspace with more entries is reported, not walked to the end
MIN_SECRET_CHARS = redact.MIN_CHARS
_SNIFF_BYTES = 8192

DATABASE_SUFFIXES = (".duckdb", ".duckdb.wal", ".db", ".sqlite", ".sqlite3", ".sqlite-shm", ".sqlite-wal")
ALLOWED_DATABASE_FILES = frozenset({layout.DATABASE_NAME, f"{layout.DATABASE_NAME}.wal"})  # top level only

# M4Bench's seven secret families. `keep` is the part an excerpt may show (a fixed
# prefix or a field name); everything after it is redacted.
SECRET_FAMILIES: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    ("anthropic_key", re.compile(rb"\b(?P<keep>sk-ant-)[A-Za-z0-9][A-Za-z0-9_-]{20,}")),
    ("openai_key", re.compile(rb"\b(?P<keep>sk-)(?!ant-)[A-Za-z0-9][A-Za-z0-9_-]{20,}")),
    ("google_key", re.compile(rb"\b(?P<keep>AIza)[0-9A-Za-z_-]{20,}")),
    ("github_token", re.compile(rb"\b(?P<keep>gh[pousr]_)[0-9A-Za-z]{20,}")),
    ("slack_token", re.compile(rb"\b(?P<keep>xox[abprs]-)[0-9A-Za-z-]{20,}")),
    ("private_key", re.compile(rb"(?P<keep>-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----)")),
    (
        "token_field",
        re.compile(rb'(?P<keep>"(?:access_token|refresh_token|id_token|api[_-]?key)"\s*:\s*")[^"]{12,}"', re.IGNORECASE),
    ),
)

RULE_SECRET = "secret"  # a secret-shaped string: rule is "secret:<family>"
RULE_SECRET_VALUE = "secret_value"  # one of the run's own secret values
RULE_HOST_PATH = "host_path"
RULE_DATABASE = "database"
RULE_TRUTH_COPY = "truth_copy"
RULE_LINK = "link"
RULE_UNSCANNED = "unscanned"  # something the lint could not check (unreadable, too many files)
# Findings that flag an attempt for review without making it a policy violation. An output byte-identical
# to the truth export is what an honest agent writes when it runs the skill's SQL (with-skill-rawsql) and
# sorts by key; with the canary proving the truth unreachable, identity is no evidence of copying, so the
# run is graded and reported apart (M4Bench scores it 0; docs/harness.md says why we depart).
FLAG_RULES = frozenset({RULE_TRUTH_COPY})


@dataclass(frozen=True)
class Violation:
    """One finding of the lint: the file (relative to the workspace), the rule, a short redacted excerpt."""

    path: str
    rule: str
    excerpt: str


def lint_workspace(
    workspace: Path,
    truth_csv: Path | None,
    host_paths: Sequence[str],
    secrets: Sequence[str],
    *,
    max_bytes: int = MAX_SCAN_BYTES,
    max_files: int = MAX_FILES,
) -> list[Violation]:
    """Every contamination finding in ``workspace``, sorted by path and rule (empty when clean).

    ``truth_csv`` is the task's truth export (None: no truth-copy check, e.g. for the
    oracle); ``host_paths`` are host folders no workspace should mention (the data
    directory, the results root, the user's home); ``secrets`` are the literal values
    handed to the agent (shorter than ``MIN_SECRET_CHARS`` are ignored). The harness lints
    the stream it collects instead (``Lint``, from ``collect``); this walks a folder.
    """
    lint = Lint(truth_csv, host_paths, secrets, max_bytes=max_bytes)
    root = Path(workspace)
    try:
        root_info = root.lstat()
    except FileNotFoundError as exc:
        raise M4AgentError(f"workspace {root} does not exist; nothing to lint") from exc
    if stat.S_ISLNK(root_info.st_mode) or not stat.S_ISDIR(root_info.st_mode):
        raise M4AgentError(f"workspace {root} is not a folder (or is a link); the lint checks real folders only")
    for count, (path, info) in enumerate(_entries(root, lint.found), start=1):
        if count > max_files:
            lint.unscanned(".", f"more than {max_files} entries; the rest were not checked")
            break
        relative = path.relative_to(root).as_posix()
        if stat.S_ISLNK(info.st_mode):
            lint.link(relative, os.fsencode(os.readlink(path)))
        elif stat.S_ISREG(info.st_mode):
            try:
                data = _read_prefix(path, max_bytes)
                digest = _sha256_regular(path) if lint.wants_digest(info.st_size) else None
            except OSError as exc:
                lint.unscanned(relative, f"file cannot be read: {exc.strerror}")
                continue
            if data is not None:  # else replaced by something other than a regular file since the walk
                lint.file(relative, data, info.st_size, digest)
    return lint.findings()


class Lint:
    """The contamination checks of one workspace, fed entry by entry (from a folder or a collected stream).

    ``file`` takes a regular file's first ``max_bytes``, its size and, when ``wants_digest``
    says the truth check needs it, its sha256; ``link`` a link's target; ``unscanned``
    what could not be checked. ``findings`` is the sorted, deduplicated result."""

    def __init__(self, truth_csv: Path | None, host_paths: Sequence[str], secrets: Sequence[str], *,
                 max_bytes: int = MAX_SCAN_BYTES) -> None:
        self.literals = _Literals(
            host_paths=[path.rstrip("/") for path in host_paths if len(path.rstrip("/")) > 1],
            secrets=[value for value in secrets if len(value) >= MIN_SECRET_CHARS],
        )
        self.truth = _Truth(truth_csv) if truth_csv is not None else None
        self.max_bytes = max_bytes
        self.found: list[Violation] = []

    def wants_digest(self, size: int) -> bool:
        return self.truth is not None and self.truth.size == size and size > 0

    def file(self, relative: str, data: bytes, size: int, digest: str | None) -> None:
        shown = self.literals.redact(relative.encode("utf-8", "surrogateescape"))
        database = _database_kind(relative, data)
        if database is not None:
            self.found.append(Violation(shown, RULE_DATABASE, database))
        if self.truth is not None and digest is not None and self.truth.matches(size, digest):
            self.found.append(Violation(shown, RULE_TRUTH_COPY, "byte-identical (sha256) to the truth export"))
        is_text = Path(relative).suffix.lower() in TEXT_SUFFIXES or b"\0" not in data[:_SNIFF_BYTES]
        if database is None and is_text:
            self.found.extend(_scan_text(shown, data[:self.max_bytes], self.literals))

    def link(self, relative: str, target: bytes) -> None:
        shown = self.literals.redact(relative.encode("utf-8", "surrogateescape"))
        self.found.append(Violation(shown, RULE_LINK, f"link to {self.literals.redact(target)}"[:120]))

    def unscanned(self, relative: str, why: str) -> None:
        shown = self.literals.redact(relative.encode("utf-8", "surrogateescape"))
        self.found.append(Violation(shown, RULE_UNSCANNED, why))

    def findings(self) -> list[Violation]:
        return sorted(set(self.found), key=lambda v: (v.path, v.rule, v.excerpt))


def _entries(root: Path, found: list[Violation]) -> Iterator[tuple[Path, os.stat_result]]:
    """Every entry under ``root`` with its lstat, depth first in name order; folders are walked, links are not."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as exc:
            relative = folder.relative_to(root).as_posix()
            found.append(Violation(relative, RULE_UNSCANNED, f"folder cannot be listed: {exc.strerror}"))
            continue
        for entry in reversed(entries):
            path = Path(entry.path)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:  # gone since the listing
                continue
            if stat.S_ISDIR(info.st_mode):
                stack.append(path)
            else:
                yield path, info


class _Literals:
    """The literal strings the lint looks for, and the redaction of anything it quotes."""

    def __init__(self, host_paths: list[str], secrets: list[str]) -> None:
        self.host_paths = [(path, os.fsencode(path)) for path in dict.fromkeys(host_paths)]
        self.secrets = redact.spellings(secrets)  # each value as it is and as an agent's tools encode it

    def redact(self, data: bytes) -> str:
        """``data`` as text with every secret value and secret-shaped string replaced (for paths and link targets)."""
        for value in self.secrets:
            data = data.replace(value, b"[redacted]")
        for _family, pattern in SECRET_FAMILIES:
            data = pattern.sub(lambda match: match.group("keep") + b"[redacted]", data)
        return data.decode("utf-8", "replace")


class _Truth:
    """The truth export's size and sha256, hashed once and only when a file of the same size turns up."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.size = path.stat().st_size
        self._digest: str | None = None

    def matches(self, size: int, digest: str) -> bool:
        if size != self.size or size == 0:
            return False
        if self._digest is None:
            with open(self.path, "rb") as handle:  # the harness's own file: following links is fine here
                self._digest = hashlib.file_digest(handle, "sha256").hexdigest()
        return digest == self._digest


def _read_prefix(path: Path, max_bytes: int) -> bytes | None:
    """Up to ``max_bytes`` of a regular file, opened without following a link or blocking on a FIFO."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        remaining = max_bytes
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _database_kind(relative: str, data: bytes) -> str | None:
    """Why this file is a database other than the workspace's own, or None."""
    if relative in ALLOWED_DATABASE_FILES:
        return None
    if data[8:12] == b"DUCK":
        return "DuckDB file header"
    if data.startswith(b"SQLite format 3\0"):
        return "SQLite file header"
    name = relative.rsplit("/", 1)[-1].lower()
    suffix = next((s for s in DATABASE_SUFFIXES if name.endswith(s)), None)
    return None if suffix is None else f"database file name (*{suffix})"


def _scan_text(relative: str, data: bytes, literals: _Literals) -> list[Violation]:
    found: list[Violation] = []
    for family, pattern in SECRET_FAMILIES:
        match = pattern.search(data)
        if match is not None:
            keep = match.group("keep").decode("ascii", "replace")
            hidden = len(match.group(0)) - len(match.group("keep"))
            excerpt = keep if hidden == 0 else f"{keep}[{hidden} bytes redacted]"
            found.append(Violation(relative, f"{RULE_SECRET}:{family}", excerpt))
    for value in literals.secrets:
        if value in data:
            found.append(Violation(relative, RULE_SECRET_VALUE, f"a secret given to the agent, or an encoding of "
                                                                 f"it ({len(value)} bytes)"))
            break
    for text, encoded in literals.host_paths:
        if encoded in data:
            found.append(Violation(relative, RULE_HOST_PATH, text[:120]))
    return found


def _sha256_regular(path: Path) -> str | None:
    """sha256 of a workspace file, opened as ``_read_prefix`` opens it; None if it is not a regular file."""
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        while chunk := os.read(fd, 1024 * 1024):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


# --------------------------------------------------------------------------- filesystem canary
#
# Reserved for the filesystem canary (it needs containers; another engineer adds it
# here, today it lives in ``canary.py``): before each campaign, prove from inside a
# real agent container that references, truth exports, task notes, other runs,
# results, host secrets and the Docker socket are all unreachable. Its findings
# should be ``Violation``s too, so one outcome rule covers every integrity check.
