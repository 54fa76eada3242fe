"""Prepare a schema variant's shared data once per data directory: export, rewrite, restructure.

``prepare(data_dir, variant)`` brings ``DIR/workspaces/<variant>/data`` up to date and
returns it: ``native`` exports the databases that exist (``export.py``); ``obfuscated``
does that, then rewrites the MIMIC-IV export under neutral names (``obfuscate.py``);
``restructured`` does both, then merges (``restructure.py``). Each step is skipped while
its stamp says its input is unchanged, so a second call costs a few milliseconds. Calls
from several processes are serialised by a lock file. When a step rewrites data, the
variant's hard-link folders (``mounts.py``) are removed: they point at the old files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from m4agent.paths import resolve_data_dir
from m4agent.workspaces.export import Progress, export_native
from m4agent.workspaces.files import locked
from m4agent.workspaces.obfuscate import prepare_obfuscated
from m4agent.workspaces.restructure import prepare_restructured
from m4agent.workspaces.store import (
    NATIVE,
    OBFUSCATED,
    RESTRUCTURED,
    check_variant,
    data_root,
    lock_path,
    mounts_root,
)


def prepare(data_dir: str | Path | None, variant: str, progress: Progress | None = None) -> Path:
    """Export and rewrite what ``variant`` needs, unless done already; the variant's data folder."""
    check_variant(variant)
    root = resolve_data_dir(data_dir)
    with locked(lock_path(root)):
        if any(export_native(root, progress).values()):
            shutil.rmtree(mounts_root(root, NATIVE), ignore_errors=True)
        if variant in (OBFUSCATED, RESTRUCTURED) and prepare_obfuscated(root, progress):
            shutil.rmtree(mounts_root(root, OBFUSCATED), ignore_errors=True)
        if variant == RESTRUCTURED and prepare_restructured(root, progress):
            shutil.rmtree(mounts_root(root, RESTRUCTURED), ignore_errors=True)
    return data_root(root, variant)
