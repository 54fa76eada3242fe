"""Ctrl-C (issue 22): SIGINT, sent by the test to a real `m4agent` process in the middle of its long
phase, stops it with exit 130 and one line (no traceback, no empty "dbt build failed: ;"), leaves no
half-written file, and the next run continues cleanly.

The moment to interrupt is read from the command's own traces (its temporary database file, new lines
in dbt's log), never from a sleep; "promptly" means before a generous timeout.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support.front_door import built_data_dir, cli, copy_data_dir, start_cli, traceback_free

TASK = "mimic-sofa-24h"
STOP_TIMEOUT = 60  # seconds a stopped command may take at most before the test fails


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return built_data_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def reference_csv(built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("signals_reference") / "sofa.csv"
    done = cli("reference", "export", TASK, "--out", str(out), "--data-dir", str(built.data_dir))
    assert done.returncode == 0, done.stderr
    return out


def _interrupt_when(process: subprocess.Popen[str], ready: Callable[[], bool], limit: float = 300) -> tuple[int, str]:
    """Send SIGINT once ``ready()`` holds; the exit code and standard error."""
    deadline = time.monotonic() + limit
    while not ready():
        assert process.poll() is None, f"finished before it could be interrupted: {process.communicate()}"
        assert time.monotonic() < deadline, "never reached the phase to interrupt"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"still running {STOP_TIMEOUT} s after Ctrl-C")
    return process.returncode, stderr


def _log_grew(log: Path, marker: str = " START ") -> Callable[[], bool]:
    """True once dbt's log has a new line with ``marker`` (a node started) beyond its present length."""
    offset = log.stat().st_size if log.exists() else 0

    def ready() -> bool:
        if not log.exists():
            return False
        with open(log, "rb") as handle:
            handle.seek(offset)
            return marker.encode() in handle.read()
    return ready


def _assert_stopped_cleanly(code: int, stderr: str) -> None:
    assert code == 130, stderr
    assert traceback_free(stderr), stderr
    assert "interrupted" in stderr
    assert "failed: ;" not in stderr and "artifact ingestion" not in stderr


def test_ctrl_c_during_synth_exits_130_and_leaves_no_partial_file(tmp_path):
    data_dir = tmp_path / "d"
    process = start_cli("data", "synth", "--patients", "20000", "--data-dir", str(data_dir))
    partial = data_dir / "mimic_iv.duckdb.partial"
    code, stderr = _interrupt_when(process, partial.exists)
    _assert_stopped_cleanly(code, stderr)
    assert not list(data_dir.glob("*.partial*")) and not (data_dir / "mimic_iv.duckdb").exists()
    again = cli("data", "synth", "--patients", "5", "--data-dir", str(data_dir))
    assert again.returncode == 0, again.stderr


def test_ctrl_c_during_reference_build_exits_130_and_keeps_the_references(built, tmp_path):
    data_dir = copy_data_dir(built.data_dir, tmp_path / "d")
    shutil.rmtree(data_dir / "dbt" / "logs", ignore_errors=True)
    process = start_cli("reference", "build", "--data-dir", str(data_dir))
    code, stderr = _interrupt_when(process, _log_grew(data_dir / "dbt" / "logs" / "dbt.log"))
    _assert_stopped_cleanly(code, stderr)
    exported = cli("reference", "export", TASK, "--out", str(tmp_path / "s.csv"), "--data-dir", str(data_dir))
    assert exported.returncode == 0, exported.stderr


def test_ctrl_c_during_grade_exits_130_and_the_next_grade_is_right(built, reference_csv):
    process = start_cli("grade", TASK, str(reference_csv), "--data-dir", str(built.data_dir), "--json")
    code, stderr = _interrupt_when(process, _log_grew(built.data_dir / "dbt" / "logs" / "dbt.log"))
    _assert_stopped_cleanly(code, stderr)
    again = cli("grade", TASK, str(reference_csv), "--data-dir", str(built.data_dir), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["reward"] == 1.0


def test_ctrl_c_during_campaign_grading_writes_no_result_and_the_rerun_grades_all(built, reference_csv,
                                                                                  tmp_path):
    root = tmp_path / "runs"
    for name in ("r1", "r2", "r3"):
        (root / name).mkdir(parents=True)
        (root / name / "run.json").write_text(json.dumps({"task": TASK}))
        shutil.copy(reference_csv, root / name / "output.csv")
    process = start_cli("grade", "--results-root", str(root), "--data-dir", str(built.data_dir))
    code, stderr = _interrupt_when(process, _log_grew(built.data_dir / "dbt" / "logs" / "dbt.log"))
    _assert_stopped_cleanly(code, stderr)
    assert not list(root.rglob("result.json")) and not list(root.rglob(".result.json.*"))
    again = cli("grade", "--results-root", str(root), "--data-dir", str(built.data_dir))
    assert again.returncode == 0, again.stderr
    assert "graded 3 runs" in again.stdout and "mean reward 1.0000" in again.stdout
