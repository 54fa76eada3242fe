"""The data directory's lock: one writer at a time, readers side by side.

Every command that writes a data directory (``data synth``/``load``, ``reference build``, ``grade``,
which replaces the batch of agent outputs held there) holds an exclusive ``fcntl.flock`` on
``DIR/.m4agent.lock``; commands that only read it (``reference export``) hold a shared one, so they
never block each other but never read a half-built database either. The operating system releases
the lock when its process ends, however it ends, so there is nothing stale to clean up.

A process that has to wait prints once who holds the lock (process id and command line, read from
``/proc/locks`` on Linux, else what the holder wrote into the lock file) and keeps waiting (Ctrl-C
stops it); with ``wait=False`` it fails at once (``DataDirBusy``). Within one process the lock is
re-entrant: a library function taking it while the command line already holds it goes straight on
(other threads of the process wait for the holder thread).
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from m4agent.errors import DataDirBusy, M4AgentError, explain

LOCK_FILE = ".m4agent.lock"
POLL_SECONDS = 0.1

_guard = threading.Lock()
_local: dict[Path, threading.RLock] = {}
_held: dict[Path, tuple[bool, int, int]] = {}  # data dir -> (exclusive, depth, fd)
_wait_default = True


def set_wait_default(wait: bool) -> None:
    """What a lock taken without an explicit ``wait`` does when busy (the command line's --no-wait)."""
    global _wait_default
    _wait_default = wait


def lock_path(data_dir: Path) -> Path:
    return data_dir / LOCK_FILE


def _describe_self() -> str:
    command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
    return f"pid {os.getpid()} ({command[:200]}) since {datetime.now().isoformat(timespec='seconds')}"


def _proc_holders(fd: int) -> list[str]:
    """Who else holds a flock on the file open as ``fd``: 'pid N (command)' from /proc/locks (Linux)."""
    try:
        inode = os.fstat(fd).st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return []
    holders = []
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF" (blocked waiters have '->' after the number)
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue
        pid, ident = fields[4], fields[5]
        if ident.rsplit(":", 1)[-1] != str(inode) or pid == str(os.getpid()):
            continue
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            command = " ".join(a.decode(errors="replace") for a in argv if a)
        except OSError:
            command = "?"
        holders.append(f"pid {pid} ({command[:200]}, {fields[3].lower()} lock)")
    return sorted(set(holders))


def holders(data_dir: Path, fd: int | None = None) -> str:
    """Who holds the data directory's lock, in words (for messages)."""
    path = lock_path(data_dir)
    if fd is None:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return "another m4agent process"
        try:
            return holders(data_dir, fd)
        finally:
            os.close(fd)
    found = _proc_holders(fd)
    if found:
        return "; ".join(found)
    try:
        written = path.read_text().strip()
    except OSError:
        written = ""
    return written or "another m4agent process"


def _open(data_dir: Path, exclusive: bool) -> int | None:
    """The lock file's descriptor; None when a reader finds a read-only folder without one (no writer
    can be there either)."""
    path = lock_path(data_dir)
    if exclusive:
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            return os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            reason = explain(exc) or str(exc)
            raise M4AgentError(f"cannot write data directory {data_dir}, which this command changes: "
                               f"{reason}") from exc
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        try:
            return os.open(path, os.O_RDONLY)
        except OSError:
            return None


@contextmanager
def data_dir_lock(data_dir: Path, exclusive: bool = True, wait: bool | None = None,
                  on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the data directory's lock (``exclusive`` for writers) for the ``with`` block.

    Busy: with ``wait`` (default: ``set_wait_default``), call ``on_wait`` once with a message naming
    the holder (default: print it to standard error) and wait; without, raise ``DataDirBusy``."""
    data_dir = data_dir.resolve()
    with _guard:
        local = _local.setdefault(data_dir, threading.RLock())
    with local:
        held = _held.get(data_dir)
        if held is not None:
            was_exclusive, depth, fd = held
            if exclusive and not was_exclusive:
                raise M4AgentError(f"internal: the lock on {data_dir} is held shared and cannot be upgraded")
            _held[data_dir] = (was_exclusive, depth + 1, fd)
            try:
                yield
            finally:
                _held[data_dir] = (was_exclusive, depth, fd)
            return
        fd = _open(data_dir, exclusive)
        if fd is None:
            yield
            return
        try:
            _acquire(data_dir, fd, exclusive, _wait_default if wait is None else wait, on_wait)
            if exclusive:
                os.ftruncate(fd, 0)
                os.pwrite(fd, (_describe_self() + "\n").encode(), 0)
            _held[data_dir] = (exclusive, 1, fd)
            try:
                yield
            finally:
                del _held[data_dir]
        finally:
            os.close(fd)  # releases the flock


def _acquire(data_dir: Path, fd: int, exclusive: bool, wait: bool,
             on_wait: Callable[[str], None] | None) -> None:
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    told = False
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        who = holders(data_dir, fd)
        if not wait:
            raise DataDirBusy(f"data directory {data_dir} is in use by {who}; wait for it to finish, or "
                              "run without --no-wait to wait for it")
        if not told:
            message = (f"waiting for data directory {data_dir}: in use by {who} "
                       "(Ctrl-C stops waiting; --no-wait fails at once instead)")
            if on_wait is None:
                print(message, file=sys.stderr, flush=True)
            else:
                on_wait(message)
            told = True
        time.sleep(POLL_SECONDS)
