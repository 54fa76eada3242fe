"""Support for the front-door tests: the real ``m4agent`` command in a subprocess, a small data
directory built once per session, and real read-only folders.

A read-only folder is made read-only for real: for root (whom permissions do not stop) through a
private mount namespace (``unshare --mount``) in which the folder is bind-mounted read-only for that
one command; for anyone else with ``chmod``.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

PATIENTS = 30
CLI = [sys.executable, "-m", "m4agent.cli"]


@dataclass(frozen=True)
class Built:
    """The session's data directory and what `m4agent reference build` printed while building it."""

    data_dir: Path
    stdout: str
    stderr: str
    returncode: int


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a command: no inherited data directory, wide output, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != "M4AGENT_DATA_DIR"}
    env["COLUMNS"] = "200"
    env.update(extra or {})
    return env


def _read_only_prefix(folders: Sequence[Path]) -> list[str]:
    if not folders:
        return []
    if os.geteuid() != 0:
        for folder in folders:
            folder.chmod(folder.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        return []
    if shutil.which("unshare") is None:
        pytest.skip("running as root without unshare: cannot make a folder read-only for real")
    mounts = " && ".join(f"mount --bind {shlex_quote(f)} {shlex_quote(f)} && "
                         f"mount -o remount,bind,ro {shlex_quote(f)}" for f in folders)
    return ["unshare", "--mount", "sh", "-c", f'{mounts} && exec "$@"', "sh"]


def shlex_quote(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
        read_only: Sequence[Path] = (), timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``m4agent ARGS`` to completion (``read_only`` folders read-only for it)."""
    return subprocess.run([*_read_only_prefix(read_only), *CLI, *args], cwd=cwd, env=environment(env),
                          capture_output=True, text=True, timeout=timeout)


def start_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
              stderr_file: Path | None = None) -> subprocess.Popen[str]:
    """Start ``m4agent ARGS`` (standard output piped; standard error to ``stderr_file`` when given)."""
    err = open(stderr_file, "w") if stderr_file else subprocess.PIPE  # noqa: SIM115 - the child holds it
    return subprocess.Popen([*CLI, *args], cwd=cwd, env=environment(env), stdout=subprocess.PIPE,
                            stderr=err, text=True)


REFERENCES = "+ref_sofa_24h +ref_meld_24h"  # what the front-door tests grade against


def built_data_dir(factory: pytest.TempPathFactory) -> Built:
    """A data directory with both synthetic datasets (30 patients) and the SOFA and MELD references,
    built once per session by `m4agent data synth` and `m4agent reference build --select` (the record
    is the build's output); treat it as read-only (copy it to change it)."""
    root = factory.getbasetemp() / "front_door_built"
    data_dir = root / "m4data"
    record = root / "build"
    if not record.with_suffix(".rc").exists():
        root.mkdir(exist_ok=True)
        for dataset in ("mimic-iv", "eicu"):
            done = cli("data", "synth", "--dataset", dataset, "--patients", str(PATIENTS),
                       "--data-dir", str(data_dir))
            assert done.returncode == 0, done.stderr
        done = cli("reference", "build", "--select", REFERENCES, "--data-dir", str(data_dir), timeout=900)
        record.with_suffix(".out").write_text(done.stdout)
        record.with_suffix(".err").write_text(done.stderr)
        record.with_suffix(".rc").write_text(str(done.returncode))
    built = Built(data_dir, record.with_suffix(".out").read_text(), record.with_suffix(".err").read_text(),
                  int(record.with_suffix(".rc").read_text()))
    assert built.returncode == 0, built.stderr[-3000:]
    return built


def copy_data_dir(source: Path, dest: Path) -> Path:
    """A private copy of a data directory (its databases and dbt artefacts, not its lock file)."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".m4agent.lock"))
    return dest


def traceback_free(text: str) -> bool:
    return "Traceback (most recent call last)" not in text
