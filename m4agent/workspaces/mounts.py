"""What a task's container mounts at ``/data``: a folder of hard links to exactly its files.

For each distinct plan, ``DIR/workspaces/<variant>/mounts/<digest>/`` holds one hard link
per planned file, at the plan's relative path, and that one folder is bound read-only at
``/data`` (``m4agent.layout.DATA``). Chosen over one bind per file because:

- one mount per container instead of about eighty: container start-up stays cheap, and
  nothing relies on Docker creating eighty mount points inside a read-only root;
- ``ls -R /data`` inside the container shows exactly the allowed files and folders; files
  of dropped relations are not there at all, not even as empty mount points;
- links cost no data blocks and take milliseconds to make, once per plan (all raw tasks
  share one folder, for instance), not per run.

The digest covers each file's relative path and identity (device, inode, size, mtime), so
a re-export (a new file under the same name) yields a new folder, and a running container
keeps reading the files it started with. Folders are built under a temporary name and
renamed into place; ``prepare`` removes a variant's folders whenever it rewrites its data.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from pathlib import Path

from m4agent.errors import M4AgentError
from m4agent.layout import DATA
from m4agent.workspaces.plan import Plan


def _identity(root: Path, rel: str) -> str:
    try:
        st = (root / rel).stat()
    except FileNotFoundError:
        raise M4AgentError(f"{root / rel} is missing; prepare the {root.parent.name} variant again") from None
    return f"{rel}:{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def mount_folder(plan: Plan, variant_data_dir: Path) -> Path:
    """The hard-link folder of ``plan`` (created if missing): what is bound at ``/data``."""
    root = Path(variant_data_dir)
    ident = "\n".join(_identity(root, rel) for rel in sorted(plan.files))
    folder = root.parent / "mounts" / hashlib.sha256(ident.encode()).hexdigest()[:24]
    if folder.is_dir():
        return folder
    # one name per process and thread: a campaign's workers may make the same folder at once
    partial = folder.with_name(f".{folder.name}.{os.getpid()}.{threading.get_ident()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    for rel in plan.files:
        target = partial / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(root / rel, target)
    try:
        os.rename(partial, folder)
    except OSError:
        if not folder.is_dir():  # another process may have won the race; anything else is real
            raise
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def mounts(plan: Plan, variant_data_dir: Path) -> list[tuple[Path, str]]:
    """``(host path, container path)`` of every read-only bind the task's container needs."""
    return [(mount_folder(plan, variant_data_dir), DATA)]
