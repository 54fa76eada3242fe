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
placeholder paths, and the dbt-duckdb plugin ``m4agent.dbt_paths`` swaps in the data
directory's files when dbt connects, after the parse. dbt still checks every file against the
saved parse, so a stale entry would only cost a partial re-parse, never a wrong build.

The cache folder is ``$M4AGENT_CACHE_DIR/dbt-parse`` (default ``~/.cache/m4agent``, or under
``$XDG_CACHE_HOME``); the newest ``KEEP`` entries are kept.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

PARSE_FILE = "partial_parse.msgpack"
KEEP = 6  # cache entries kept (one per project version and kind of run)
# what dbt parses: the project's own folders and files (dbt_project.yml names them)
PROJECT_PARTS = ("dbt_project.yml", "profiles.yml", "selectors.yml", "packages.yml",
                 "models", "macros", "seeds", "tests/dbt", "analyses", "snapshots")


def cache_root() -> Path:
    """The folder holding saved parses."""
    explicit = os.environ.get("M4AGENT_CACHE_DIR")
    base = Path(explicit) if explicit else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "m4agent"
    return base / "dbt-parse"


def project_key(project_dir: Path, kind: str) -> str:
    """A hash of every file dbt parses in ``project_dir``, the dbt version and ``kind``."""
    from dbt.version import __version__ as dbt_version

    digest = hashlib.sha256(f"{dbt_version}\0{kind}\0{project_dir.resolve()}\0".encode())
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
    has none; True if it did."""
    saved = cache_root() / key / PARSE_FILE
    present = target_dir / PARSE_FILE
    if present.exists() or not saved.exists():
        return False
    target_dir.mkdir(parents=True, exist_ok=True)
    partial = present.with_name(f"{PARSE_FILE}.{os.getpid()}.partial")
    shutil.copyfile(saved, partial)
    partial.replace(present)
    return True


def save(key: str, target_dir: Path) -> bool:
    """Keep ``target_dir``'s saved parse as the project version ``key``'s, unless the cache has one;
    True if saved. Called after a run, with the key computed before it (the files dbt parsed)."""
    written = target_dir / PARSE_FILE
    entry = cache_root() / key
    if not written.exists() or (entry / PARSE_FILE).exists():
        return False
    entry.mkdir(parents=True, exist_ok=True)
    partial = entry / f"{PARSE_FILE}.{os.getpid()}.partial"
    shutil.copyfile(written, partial)
    partial.replace(entry / PARSE_FILE)
    _prune(entry.parent)
    return True


def _prune(root: Path) -> None:
    """Remove all but the newest KEEP entries."""
    entries = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP:]:
        shutil.rmtree(old, ignore_errors=True)
