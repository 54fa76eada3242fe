"""User-facing failures: the one exception type, the exit codes, and the one place that turns an
expected failure of the environment (a read-only folder, a file where a folder is meant, a database
another program holds) into a single line saying what to do next.

The command line (``m4agent.cli``) catches ``M4AgentError`` and whatever :func:`explain` recognises
and prints one line; anything else is a defect and keeps its traceback.
"""

from __future__ import annotations

import errno
import re

EXIT_OK = 0
EXIT_ERROR = 1  # usage or input error, or an environment the command cannot work in
EXIT_STRICT_FAIL = 2  # `grade`, `run`: an output failed M4Bench's strict checks or is missing (opt out: --no-fail)
EXIT_INCOMPLETE = 3  # `run`, `campaign run`: runs left without a result (quota, budget, infrastructure)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as shells report it

# The one statement of the exit codes, for every command's --help; README.md's table says the same.
EXIT_CODES = (
    (EXIT_OK, "success"),
    (EXIT_ERROR, "usage or input error, or a check that failed (`doctor`)"),
    (EXIT_STRICT_FAIL, "`grade`, `run`: an output failed the strict checks or the agent left none "
                       "(opt out with --no-fail)"),
    (EXIT_INCOMPLETE, "`run`, `campaign run`: runs left without a result (a quota stop, the budget spent, "
                      "infrastructure failures past their retries); run the command again to resume"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); run the command again to continue"),
)
EXIT_CODES_HELP = "Exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES) + "."


class M4AgentError(Exception):
    """A user-facing error: the message says what went wrong and what to do next."""


class DataDirBusy(M4AgentError):
    """Another m4agent process holds the data directory and the caller asked not to wait."""


_DUCKDB_HOLDER = re.compile(r"Conflicting lock is held in (?P<program>\S+) \(PID (?P<pid>\d+)\)")


def explain(exc: BaseException) -> str | None:
    """One line for an expected failure (what happened, then what to do), or None for a defect.

    Recognised: operating-system errors on files and folders (read-only file system, permission
    denied, a file where a folder is meant, a folder where a file is meant, a missing folder, a full
    disk) and DuckDB's refusals to open a database (held by another program, read-only storage)."""
    if isinstance(exc, OSError):
        return _explain_os_error(exc)
    try:
        import duckdb
    except ImportError:  # pragma: no cover - duckdb is a dependency
        return None
    if isinstance(exc, duckdb.Error):
        return _explain_duckdb_error(exc)
    return None


def _explain_os_error(exc: OSError) -> str | None:
    where = exc.filename if exc.filename is not None else "a file"
    if exc.errno == errno.EROFS:
        return (f"{where} is on a read-only file system; choose a writable place instead (another --out, or "
                "another data directory: --data-dir DIR), or copy the data there")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (f"permission denied for {where}; choose a folder you can write (for the data directory: "
                "--data-dir DIR), or change its permissions")
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        return (f"{where} (or a folder on its path) is a file, where a folder is meant; "
                "pass a folder, or move the file away")
    if exc.errno == errno.EISDIR:
        return f"{where} is a folder, where a file is meant; pass a file path"
    if exc.errno == errno.ENOSPC:
        return f"no space left on the device holding {where}; free space or choose another folder"
    if exc.errno == errno.ENOENT and exc.filename is not None:
        return f"{where} does not exist; check the path"
    return None


def _explain_duckdb_error(exc: Exception) -> str | None:
    text = str(exc)
    holder = _DUCKDB_HOLDER.search(text)
    if holder or "Could not set lock on file" in text:
        path = re.search(r'file "([^"]+)"', text)
        what = path.group(1) if path else "the database"
        who = (f" ({holder.group('program')}, pid {holder.group('pid')})" if holder else "")
        return (f"{what} is open in another program{who}; close that program (or wait for it to finish) "
                "and retry")
    if "Read-only file system" in text or "Permission denied" in text:
        return (f"cannot write the database: {text.splitlines()[0][:300]}; choose a writable data directory "
                "(--data-dir DIR), or copy the data there")
    return None
