"""Safe concurrent use of one data directory (issue 22): writers take turns through the data
directory's lock, a waiting writer names the holder (or fails fast with --no-wait), readers never block
each other, the lock dies with its process, and concurrent `grade` calls each print their own score.

Every process here is a real `m4agent` command or a real Python process holding the real lock.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.front_door import built_data_dir, cli, start_cli, traceback_free

TASK = "mimic-sofa-24h"
OTHER_TASK = "mimic-meld-24h"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return built_data_dir(tmp_path_factory)


def _hold(data_dir: Path, exclusive: bool) -> subprocess.Popen[str]:
    """A process holding the data directory's lock until its standard input closes."""
    code = ("import sys; from pathlib import Path; from m4agent.locking import data_dir_lock\n"
            "with data_dir_lock(Path(sys.argv[1]), exclusive=sys.argv[2] == 'x'):\n"
            "    print('held', flush=True); sys.stdin.read()\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(data_dir), "x" if exclusive else "s"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def _wait_for_text(path: Path, text: str, process: subprocess.Popen[str], limit: float = 120) -> str:
    """The file's text once it contains ``text`` (or the process ended, or ``limit`` seconds passed)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        content = path.read_text() if path.exists() else ""
        if text in content or process.poll() is not None:
            return content
        time.sleep(0.05)
    return path.read_text() if path.exists() else ""


def test_second_writer_waits_and_names_the_holder(tmp_path):
    data_dir = tmp_path / "d"
    holder = _hold(data_dir, exclusive=True)
    err = tmp_path / "writer.err"
    writer = start_cli("data", "synth", "--patients", "5", "--data-dir", str(data_dir), stderr_file=err)
    try:
        message = _wait_for_text(err, "waiting for data directory", writer)
        assert writer.poll() is None, "the writer must wait while the holder runs"
    finally:
        holder.communicate("")
    assert writer.wait(timeout=120) == 0, err.read_text()
    assert "waiting for data directory" in message and f"pid {holder.pid}" in message
    assert (data_dir / "mimic_iv.duckdb").exists()


def test_no_wait_fails_at_once_naming_the_holder(tmp_path):
    data_dir = tmp_path / "d"
    holder = _hold(data_dir, exclusive=True)
    try:
        done = cli("data", "synth", "--patients", "5", "--data-dir", str(data_dir), "--no-wait")
    finally:
        holder.communicate("")
    assert done.returncode == 1 and traceback_free(done.stderr)
    assert "in use by" in done.stderr and f"pid {holder.pid}" in done.stderr
    assert not (data_dir / "mimic_iv.duckdb").exists()


def test_readers_never_block_each_other(built, tmp_path):
    reader = _hold(built.data_dir, exclusive=False)
    try:
        done = cli("reference", "export", TASK, "--out", str(tmp_path / "s.csv"),
                   "--data-dir", str(built.data_dir), "--no-wait")
    finally:
        reader.communicate("")
    assert done.returncode == 0, done.stderr
    assert "waiting" not in done.stderr


def test_a_reader_keeps_writers_out(built):
    reader = _hold(built.data_dir, exclusive=False)
    try:
        done = cli("grade", TASK, "/nonexistent.csv", "--data-dir", str(built.data_dir), "--no-wait")
    finally:
        reader.communicate("")
    assert done.returncode == 1 and "in use by" in done.stderr


def test_the_lock_dies_with_its_process(tmp_path):
    data_dir = tmp_path / "d"
    holder = _hold(data_dir, exclusive=True)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    done = cli("data", "synth", "--patients", "5", "--data-dir", str(data_dir), "--no-wait")
    assert done.returncode == 0, done.stderr


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _write(path: Path, rows: list[dict[str, str]], fields: list[str]) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_concurrent_grades_each_print_their_own_score(built, tmp_path):
    exports = {}
    for task in (TASK, OTHER_TASK):
        out = tmp_path / f"{task}.csv"
        done = cli("reference", "export", task, "--out", str(out), "--data-dir", str(built.data_dir))
        assert done.returncode == 0, done.stderr
        exports[task] = out
    sofa = _rows(exports[TASK])
    fields = list(sofa[0])
    half = len(sofa) // 2
    outputs = {  # run id (file stem) -> (task, file)
        "exact": (TASK, _write(tmp_path / "exact.csv", sofa, fields)),
        "no_renal": (TASK, _write(tmp_path / "no_renal.csv", sofa, [f for f in fields if f != "renal"])),
        "half": (TASK, _write(tmp_path / "half.csv", sofa[:half], fields)),
        "other": (OTHER_TASK, _write(tmp_path / "other.csv", _rows(exports[OTHER_TASK]),
                                     list(_rows(exports[OTHER_TASK])[0]))),
    }
    running = {run_id: start_cli("grade", task, str(path), "--data-dir", str(built.data_dir), "--json")
               for run_id, (task, path) in outputs.items()}
    results, codes = {}, {}
    for run_id, process in running.items():
        stdout, stderr = process.communicate(timeout=600)
        assert traceback_free(stderr), stderr
        codes[run_id] = process.returncode
        results[run_id] = json.loads(stdout)

    for run_id, (task, _) in outputs.items():
        assert results[run_id]["run_id"] == run_id and results[run_id]["task"] == task
    assert results["exact"]["reward"] == 1.0 and results["exact"]["strict_pass"]
    assert results["other"]["reward"] == 1.0 and results["other"]["strict_pass"]
    assert not results["no_renal"]["strict_pass"]
    assert any("renal" in check["detail"] for check in results["no_renal"]["checks"] if not check["passed"])
    assert results["half"]["key_recall"] == pytest.approx(half / len(sofa))
    assert results["half"]["agent_rows"] == half
    assert codes == {"exact": 0, "other": 0, "no_renal": 2, "half": 2}
