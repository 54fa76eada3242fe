"""What an agent left, taken out of its container: bounded, never through a path the agent chose.

The workspace is a tmpfs inside the container, so nothing the agent writes reaches the
host's disk by itself. After the agent phase every process of the agent is killed
(``AgentContainer.stop_agent``), so the workspace is still; the image's GNU tar then
archives it to its standard output, as the agent's user (it reads what the agent could
read, stores a link as a link, never opens a FIFO), and ``collect`` reads that stream:

- the top-level ``output.csv``, when a regular file, is written whole to the attempt's
  ``output.csv`` (its size is bounded by the workspace's tmpfs): the one stored copy;
- every other regular file is linted from the stream (``integrity.Lint``: secrets, host
  paths, databases, truth copies) and kept under the attempt's ``workspace/`` for people
  to read, each cut at ``KEEP_FILE_BYTES`` and all together at ``KEEP_TOTAL_BYTES``
  (``workspace.json`` lists every entry with its size, sha256 and what was kept);
- links, hard links, FIFOs and devices are never made on the host: each is a finding;
- the top-level ``database.duckdb`` (and its ``.wal``) is the harness's own and is skipped;
- names are checked part by part (no absolute path, no ``..``) and written only below
  folders this module made itself.

Whatever the agent left (a folder or FIFO named ``output.csv``, unreadable files, a tree
past the caps, a stream longer than the workspace could hold) becomes a finding or the
reason there is no output: the agent's own outcome, never the harness's failure.
"""

from __future__ import annotations

import hashlib
import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from m4agent import layout
from m4agent.harness import integrity
from m4agent.run_folder import WORKSPACE_DIR, write_json_atomic

KEEP_FILE_BYTES = 1024 * 1024  # of each workspace file, kept for people to read
KEEP_TOTAL_BYTES = 32 * 1024 * 1024  # of all of them together
MANIFEST_NAME = "workspace.json"
HARNESS_FILES = frozenset({layout.DATABASE_NAME, f"{layout.DATABASE_NAME}.wal"})
TAR_COMMAND = ["tar", "--create", "--file=-", "--numeric-owner", "--one-file-system", f"--directory={layout.WORKSPACE}",
               "."]


@dataclass
class Collected:
    """What collection found: the output (or why there is none), the lint's findings, the entries seen."""

    output: Path | None = None
    why_no_output: str = "no output.csv"
    findings: list[integrity.Violation] = field(default_factory=list)
    entries: int = 0
    kept_bytes: int = 0


def collect(archive: Path, attempt: Path, lint: integrity.Lint, *, complete: bool, tar_errors: bytes) -> Collected:
    """Read ``archive`` (the tar stream of the workspace, possibly cut short: ``complete`` False) into ``attempt``.

    ``tar_errors`` is what tar said on its standard error (files it could not read)."""
    found = Collected()
    keep_root = attempt / WORKSPACE_DIR
    keep_root.mkdir()
    manifest: list[dict[str, Any]] = []
    made = {""}  # folders made under keep_root, by relative name
    try:
        with tarfile.open(archive, mode="r|") as stream:
            for member in stream:
                found.entries += 1
                if found.entries > integrity.MAX_FILES:
                    lint.unscanned(".", f"more than {integrity.MAX_FILES} entries; the rest were not checked")
                    break
                relative = _relative(member.name)
                if relative is None:
                    lint.unscanned(repr(member.name)[:120], "an entry name that is not a plain relative path")
                    continue
                if relative == "":
                    continue
                entry: dict[str, Any] = {"path": relative, "kind": _kind(member), "size": member.size}
                manifest.append(entry)
                if member.isdir():
                    _make_folder(keep_root, relative, made)
                elif member.isreg():
                    _file(stream, member, relative, entry, attempt, keep_root, made, lint, found)
                elif member.issym() or member.islnk():
                    lint.link(relative, os.fsencode(member.linkname))
                    if relative == layout.OUTPUT_NAME:
                        found.why_no_output = "output.csv is a link"
                elif relative == layout.OUTPUT_NAME:
                    found.why_no_output = "output.csv is not a regular file"
    except (tarfile.TarError, OSError) as exc:
        if complete:
            lint.unscanned(".", f"the workspace could not be read whole ({type(exc).__name__}: {exc})"[:200])
    if not complete:
        lint.unscanned(".", "the workspace was larger than the collection allows; the rest was not checked")
    for line in tar_errors.decode("utf-8", "replace").splitlines()[:20]:
        lint.unscanned(".", f"tar: {line.removeprefix('tar: ')}"[:200])
    if found.output is None and (attempt / layout.OUTPUT_NAME).exists():
        (attempt / layout.OUTPUT_NAME).unlink()  # a partial output (the stream broke inside it) is no output
    write_json_atomic(attempt / MANIFEST_NAME, {"entries": manifest, "complete": complete})
    found.findings = lint.findings()
    return found


def _relative(name: str) -> str | None:
    """The member's name as a relative path of plain parts ("" for the root), or None when it is not one."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if name.startswith("/") or any(part == ".." for part in parts):
        return None
    return "/".join(parts)


def _kind(member: tarfile.TarInfo) -> str:
    if member.isdir():
        return "folder"
    if member.isreg():
        return "file"
    if member.issym():
        return "link"
    if member.islnk():
        return "hard link"
    if member.isfifo():
        return "fifo"
    return "special"


def _make_folder(root: Path, relative: str, made: set[str]) -> Path | None:
    """The kept folder for ``relative``, made part by part below ``root`` (only folders made here)."""
    parts = relative.split("/")
    for depth in range(1, len(parts) + 1):
        name = "/".join(parts[:depth])
        if name in made:
            continue
        try:
            (root / name).mkdir()
        except OSError:
            return None  # a kept file has that name already (tar lists a folder once; a clash is not kept)
        made.add(name)
    return root / relative


def _file(stream: tarfile.TarFile, member: tarfile.TarInfo, relative: str, entry: dict[str, Any], attempt: Path,
          keep_root: Path, made: set[str], lint: integrity.Lint, found: Collected) -> None:
    source = stream.extractfile(member)
    if source is None:
        return
    if relative in HARNESS_FILES:
        return
    digest = hashlib.sha256()
    prefix = bytearray()
    if relative == layout.OUTPUT_NAME:
        target: Path | None = attempt / layout.OUTPUT_NAME
        budget = member.size  # the output is kept whole, once
    else:
        folder = _make_folder(keep_root, relative.rpartition("/")[0], made) if "/" in relative else keep_root
        target = None if folder is None else keep_root / relative
        budget = max(0, min(KEEP_FILE_BYTES, KEEP_TOTAL_BYTES - found.kept_bytes))
    kept = _copy(source, target, budget, digest, prefix, lint.max_bytes)
    entry.update(sha256=digest.hexdigest(), kept=kept)
    if relative == layout.OUTPUT_NAME:
        found.output, found.why_no_output = attempt / layout.OUTPUT_NAME, ""
    else:
        found.kept_bytes += kept
    lint.file(relative, bytes(prefix), member.size, digest.hexdigest())


def _copy(source: IO[bytes], target: Path | None, budget: int, digest: Any, prefix: bytearray, scan: int) -> int:
    """Stream ``source`` through the digest and the lint's prefix, writing its first ``budget`` bytes to ``target``."""
    kept = 0
    handle = None
    if target is not None and budget > 0:
        handle = os.fdopen(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644), "wb")
    try:
        while chunk := source.read(1024 * 1024):
            digest.update(chunk)
            if len(prefix) < scan:
                prefix.extend(chunk[:scan - len(prefix)])
            if handle is not None and kept < budget:
                piece = chunk[:budget - kept]
                handle.write(piece)
                kept += len(piece)
    finally:
        if handle is not None:
            handle.close()
    return kept
