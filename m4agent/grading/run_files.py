"""Open a file of an agent's run folder as hostile input: a regular file inside the folder, or a reason.

An agent controls what it leaves in its run folder. A symbolic link named
``output.csv`` could point at the reference CSV (a perfect score), a named pipe
would block the reader, a device would never end. So grading opens a run's
files only through ``open_in_folder``: the folder is opened without following
a link, the file is looked up in it with ``lstat`` and opened with
``O_NOFOLLOW`` (relative to the folder's descriptor, so no path is resolved
twice), and it must be a regular file, the same one ``lstat`` saw. Links are
never followed, not even to a file inside the folder; the reason says where
a link points (inside or outside the run folder) without reading its target.
Nothing is ever read through a path a pattern could widen: readers get the
open file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class UnsafeFile(Exception):
    """The file cannot be graded as it stands; the message is the reason (``<name> is a directory``)."""


class MissingFile(UnsafeFile):
    """The file does not exist."""


_KINDS = ((stat.S_ISDIR, "is a directory"), (stat.S_ISFIFO, "is not a regular file (a named pipe)"),
          (stat.S_ISCHR, "is not a regular file (a character device)"),
          (stat.S_ISBLK, "is not a regular file (a block device)"),
          (stat.S_ISSOCK, "is not a regular file (a socket)"))


def _kind_problem(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    return next((why for test, why in _KINDS if test(mode)), "is not a regular file")


def _link_problem(folder: Path, name: str) -> str:
    """Where the link ``folder/name`` points, in words, from its text alone (the target is not opened)."""
    try:
        target = os.readlink(folder / name)
    except OSError:
        return "is a link (links are not followed)"
    inside = os.path.normpath(os.path.join(os.path.abspath(folder), target))
    if os.path.commonpath([inside, os.path.abspath(folder)]) == os.path.abspath(folder):
        return "is a link (links are not followed, even inside the run folder)"
    return "is a link outside the run folder"


def check_entry(folder: Path, name: str) -> str | None:
    """Why ``folder/name`` cannot be read as a run's file (None when it is a regular file); raises
    MissingFile when it does not exist."""
    try:
        mode = os.lstat(folder / name).st_mode
    except FileNotFoundError:
        raise MissingFile(f"{name} not found") from None
    except OSError as exc:
        return f"cannot be inspected ({exc.strerror})"
    if stat.S_ISLNK(mode):
        return _link_problem(folder, name)
    return _kind_problem(mode)


def open_in_folder(folder: Path, name: str, max_bytes: int | None = None) -> tuple[BinaryIO, int]:
    """Open ``folder/name`` for reading, as a regular file, without following any link; (file, size).

    Raises MissingFile when it does not exist, UnsafeFile with the reason when it is a link, a
    directory, a pipe, a device or a socket, cannot be opened, or is larger than ``max_bytes``."""
    problem = check_entry(folder, name)
    if problem:
        raise UnsafeFile(f"{name} {problem}")
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    flags = os.O_RDONLY | nofollow | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        folder_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow)
    except OSError as exc:
        raise UnsafeFile(f"{name}: its run folder cannot be opened ({exc.strerror})") from None
    try:
        fd = os.open(name, flags, dir_fd=folder_fd)
    except OSError as exc:
        raise UnsafeFile(f"{name} cannot be opened ({exc.strerror})") from None
    finally:
        os.close(folder_fd)
    try:
        info = os.fstat(fd)
        problem = _kind_problem(info.st_mode)  # replaced between lstat and open
        if problem:
            raise UnsafeFile(f"{name} {problem}")
        if max_bytes is not None and info.st_size > max_bytes:
            raise UnsafeFile(f"{name} is larger than {max_bytes} bytes ({info.st_size})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), info.st_size
    except BaseException:
        os.close(fd)
        raise
