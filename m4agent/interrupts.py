"""Ctrl-C that works: every command stops promptly with exit 130 and leaves no half-written file.

While a command runs (:func:`handling_interrupts`, entered by the command line), the first SIGINT
raises ``KeyboardInterrupt`` in the main thread as Python does, so ``finally`` blocks remove
temporary files and release locks, and sets a flag other threads read (:func:`requested`,
:func:`check`) to stop at their next step. Should the process still be alive ``GRACE_SECONDS``
later (a thread that cannot be stopped, a call into C that does not return), it exits with 130
anyway; a second Ctrl-C exits at once. Files are only ever written under a temporary name and
renamed into place, so an exit at any moment leaves the previous file or the new one, never half of
one; the temporaries left by a forced exit are removed by the next run.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from m4agent.errors import EXIT_INTERRUPTED

GRACE_SECONDS = 10.0

_requested = threading.Event()


def requested() -> bool:
    """True once Ctrl-C was pressed during the current command."""
    return _requested.is_set()


def check() -> None:
    """Raise ``KeyboardInterrupt`` in any thread once Ctrl-C was pressed (call between steps)."""
    if _requested.is_set():
        raise KeyboardInterrupt


def _force_exit() -> None:
    sys.stderr.write(f"m4agent: still stopping {GRACE_SECONDS:g} s after Ctrl-C; exiting now\n")
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    if _requested.is_set():
        os._exit(EXIT_INTERRUPTED)
    _requested.set()
    timer = threading.Timer(GRACE_SECONDS, _force_exit)
    timer.daemon = True
    timer.start()
    raise KeyboardInterrupt


@contextmanager
def handling_interrupts() -> Iterator[None]:
    """SIGINT handled as the module docstring says, for the ``with`` block (main thread only; elsewhere
    Python's own handling stays)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _requested.clear()
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
