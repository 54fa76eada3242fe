"""dbt's saved parse, kept once per version of the project and reused by every data directory.

dbt parses the whole project (about 1,000 nodes here) before it runs anything: some 40 s on
two cores from scratch, a few seconds when it finds its saved parse (``partial_parse.msgpack``)
in the target folder. Each data directory has a target folder of its own (``DIR/dbt/target``,
beside the databases it describes), so a new data directory would pay the full parse although
the project is the same. This module keeps the saved parse in a cache folder, keyed by a hash of
the project's files, the dbt version and the kind of run (the target folder's name, which
differs when the vars differ: grading keeps its own), and seeds a new target folder with it.

Why a saved parse stays valid across data directories: what differs between them is only the
databases' paths. dbt re-parses from scratch when the rendered profile, the vars or the
environment variables read by ``dbt_project.yml`` change; the profile therefore names fixed
placeholder paths, and the dbt-duckdb plugin ``m4agent.dbt.duckdb_plugin`` swaps in the data
directory's files when dbt connects, after the parse. dbt still checks every file against the
saved parse, so a stale entry would only cost a partial re-parse, never a wrong build.

The parse also gives ``manifest.json`` (the project's nodes, their relations and tests), which
takes dbt about half a second to write. It is the same for every data directory, so it is kept
beside the saved parse and copied into a new target folder with it; a stamp beside it
(``manifest.json.key``: the key and the file's modification time) says which project version it
describes, and while it is current a run does not write it again (``manifest_is_current``).

The cache folder is ``$M4AGENT_CACHE_DIR/dbt-parse`` (default ``~/.cache/m4agent``, or under
``$XDG_CACHE_HOME``); the newest ``KEEP`` entries are kept.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

PARSE_FILE = "partial_parse.msgpack"
MANIFEST_FILE = "manifest.json"
MANIFEST_STAMP = "manifest.json.key"  # which key's parse wrote manifest.json, and when
KEEP = 6  # cache entries kept (one per project version and kind of run)
# what dbt parses: the project's own folders and files (dbt_project.yml names them)
PROJECT_PARTS = ("dbt_project.yml", "profiles.yml", "selectors.yml", "packages.yml",
                 "models", "macros", "seeds", "analyses", "snapshots")


def cache_root() -> Path:
    """The folder holding saved parses."""
    explicit = os.environ.get("M4AGENT_CACHE_DIR")
    base = Path(explicit) if explicit else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "m4agent"
    return base / "dbt-parse"


def project_key(project_dir: Path, kind: str, options: Sequence[str] = ()) -> str:
    """A hash of every file dbt parses in ``project_dir``, the dbt version, ``kind`` and the
    command-line ``options`` that shape a parse (``--vars``, ``--target``)."""
    from dbt.version import __version__ as dbt_version

    digest = hashlib.sha256("\0".join([dbt_version, kind, str(project_dir.resolve()), *options, ""]).encode())
    for part in PROJECT_PARTS:
        for file in _files(project_dir / part):
            digest.update(str(file.relative_to(project_dir)).encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()[:24]


def _files(path: Path) -> list[Path]:
    """The files under ``path`` (or ``path`` itself), sorted; linked folders followed."""
    if path.is_file():
        return [path]
    found = [Path(folder) / name for folder, _, names in os.walk(path, followlinks=True) for name in names]
    return sorted(found)


def restore(key: str, target_dir: Path) -> bool:
    """Put the saved parse of the project version ``key`` (``project_key``) into ``target_dir`` when it
    has none, and its manifest when ``target_dir``'s is not current; True if the parse was put."""
    entry = cache_root() / key
    if manifest_is_current(key, entry) and not manifest_is_current(key, target_dir):
        _copy(entry / MANIFEST_FILE, target_dir / MANIFEST_FILE)
        stamp_manifest(key, target_dir)
    present = target_dir / PARSE_FILE
    if present.exists() or not (entry / PARSE_FILE).exists():
        return False
    _copy(entry / PARSE_FILE, present)
    return True


def save(key: str, target_dir: Path) -> bool:
    """Keep ``target_dir``'s saved parse as the project version ``key``'s, unless the cache has one,
    and its manifest when current; True if the parse was saved. Called after a run, with the key
    computed before it (the files dbt parsed)."""
    entry = cache_root() / key
    if manifest_is_current(key, target_dir) and not manifest_is_current(key, entry):
        _copy(target_dir / MANIFEST_FILE, entry / MANIFEST_FILE)
        stamp_manifest(key, entry)
    written = target_dir / PARSE_FILE
    if not written.exists() or (entry / PARSE_FILE).exists():
        return False
    _copy(written, entry / PARSE_FILE)
    _prune(entry.parent)
    return True


def manifest_is_current(key: str, folder: Path) -> bool:
    """True when ``folder/manifest.json`` was written by a parse of the project version ``key`` (or
    copied from one) and not rewritten since."""
    manifest, stamp = folder / MANIFEST_FILE, folder / MANIFEST_STAMP
    if not manifest.exists() or not stamp.exists():
        return False
    return stamp.read_text().split() == [key, str(manifest.stat().st_mtime_ns)]


def stamp_manifest(key: str, folder: Path) -> None:
    """Record that ``folder/manifest.json``, as it is now, describes the project version ``key``."""
    mtime = (folder / MANIFEST_FILE).stat().st_mtime_ns
    (folder / MANIFEST_STAMP).write_text(f"{key} {mtime}\n")


def _copy(source: Path, target: Path) -> None:
    """Copy ``source`` over ``target`` through a partial file, so a reader never sees half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    shutil.copyfile(source, partial)
    partial.replace(target)


def _prune(root: Path) -> None:
    """Remove all but the newest KEEP entries."""
    entries = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP:]:
        shutil.rmtree(old, ignore_errors=True)
