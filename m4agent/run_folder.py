"""The run folder's contract: its file names, how its JSON files are written and read, what an
interrupted write leaves and how it is cleared, and the result of a run that could not be graded.

Two writers fill run folders: the harness (a campaign's ``runs/<task>/<key>/``, ``records``) and
grading (``result.json`` of each folder of a results tree, ``grading.results_tree``). Both write
through this module, so a file written by one reads the same to the other and to every reader
(reports, the viewer, the Harbor export): a ``result.json`` is never half written, a kill leaves the
old file or the new one, and its leftovers have one name pattern.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError

RUN_FILE = "run.json"  # what the run is: its task (and, in a campaign, its spec and key)
RESULT_FILE = "result.json"  # its score, written last: a run with one is done
OUTPUT_NAME = "output.csv"  # the agent's answer, under the name it wrote in its workspace
STARTED_FILE = "started.json"  # attempts/NNNN/: written when the attempt starts
ATTEMPT_FILE = "attempt.json"  # attempts/NNNN/: written when it ends, with its outcome
TRACE_FILE = "trace.log"  # attempts/NNNN/: what the agent's process printed
EGRESS_FILE = "egress.jsonl"  # attempts/NNNN/: the egress proxy's decisions
WIRE_FILE = "wire.jsonl"  # attempts/NNNN/: the real CLIs' model exchanges, read by the metering proxy
ATTEMPTS_DIR = "attempts"  # RUN/attempts/NNNN/
RUNS_DIR = "runs"  # CAMPAIGN/runs/<task>/<key>/
WORKSPACE_DIR = "workspace"  # attempts/NNNN/workspace/: what the agent left (never read as a record)
TEMPORARY_SUFFIX = ".tmp"  # an atomic write's file before its rename: .NAME.XXXXXXXX.tmp
PARALLEL_WRITES = 16  # write_json_each: fsyncs waiting together


def write_json_atomic(path: Path, payload: Any, sort_keys: bool = True) -> None:
    """Write JSON beside its final place, flush it to disk, and rename it over the file: readers never
    see half a file, and a crash after the rename keeps the new one. A link in its place is replaced,
    never followed. ``sort_keys=False`` keeps the payload's order (a results tree's ``result.json``
    lists grading's fields in grading's order)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(payload, handle, indent=2, sort_keys=sort_keys)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json_each(files: Sequence[tuple[Path, Any]], sort_keys: bool = True) -> dict[Path, OSError]:
    """``write_json_atomic`` for many files at once; the files that could not be written, with why.

    The writes run side by side: each waits on its own fsync, and the file system commits waiting
    fsyncs together, so a results tree of hundreds of runs costs about one flush, not hundreds."""
    def write(path: Path, payload: Any) -> OSError | None:
        try:
            write_json_atomic(path, payload, sort_keys=sort_keys)
        except OSError as exc:
            return exc
        return None

    with ThreadPoolExecutor(max_workers=PARALLEL_WRITES) as pool:
        failed = list(pool.map(lambda item: write(*item), files))
    return {path: exc for (path, _), exc in zip(files, failed, strict=True) if exc is not None}


def read_json(path: Path) -> Any:
    """A JSON file the harness wrote; a missing or torn one is an error naming it. (A file the agent
    could have written is never read this way: ``grading.run_files`` opens those as hostile input.)"""
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise M4AgentError(f"cannot read {path} ({exc}); the campaign folder is damaged") from exc


def remove_leftovers(folder: Path, names: tuple[str, ...] | None = None) -> list[str]:
    """Delete what interrupted atomic writes left in ``folder``; the names deleted.

    Without ``names``, every ``.*.tmp`` file (a folder only the harness writes). With ``names``, only
    the temporaries of those files (``.result.json.*``, also as earlier versions named them, without
    the suffix): in a results tree the rest of the folder is not ours to clear. Links among them are
    removed, never followed; folders are left."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        ours = (entry.name.startswith(tuple(f".{name}." for name in names)) if names is not None
                else entry.name.startswith(".") and entry.name.endswith(TEMPORARY_SUFFIX))
        if ours and not entry.is_dir(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed.append(entry.name)
            except OSError:
                pass
    return removed


def zero_result(run_id: str, task: str | None, error: str, expectations: bool = False) -> dict[str, Any]:
    """The grading result of a run that could not be graded: reward 0, nothing matched, ``error`` as the
    reason (with ``expectations``, no suite validated either). Only a fault of the run itself earns it;
    a fault of the environment raises instead (``grading.batch``)."""
    result: dict[str, Any] = {
        "task": task, "run_id": run_id, "reward": 0.0, "match_rates": {}, "strict_pass": False,
        "checks": [], "key_precision": 0.0, "key_recall": 0.0, "key_f1": 0.0, "agent_rows": 0,
        "agent_unique_keys": 0, "extra_keys": 0, "duplicate_rows": 0, "truth_rows": 0,
        "errors": [error],
    }
    if expectations:
        result.update(expectations_pass=False, expectations_failed=["not graded"])
    return result
