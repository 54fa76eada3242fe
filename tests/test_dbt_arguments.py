"""dbt is configured by arguments (m4agent.dbt.runner): its threads, folders and databases, never the
process environment, which campaign worker threads read while a grading call runs."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import duckdb
import pytest

from m4agent.dbt import runner as dbt_runner
from m4agent.paths import database_path

COMPILE = ["compile", "--select", "stg_mimiciv_icu__chartevents"]


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    """A data directory with empty MIMIC-IV and eICU databases: enough for dbt to compile a view."""
    for dataset in ("mimic-iv", "eicu"):
        duckdb.connect(str(database_path(tmp_path, dataset))).close()
    return tmp_path


def test_a_dbt_call_leaves_the_process_environment_alone(data_dir: Path) -> None:
    before = dict(os.environ)
    seen: list[dict[str, str]] = []
    done = threading.Event()

    def watch() -> None:  # what a campaign worker thread would read meanwhile
        while not done.is_set():
            now = dict(os.environ)
            if now != before:
                seen.append(now)
                return
            done.wait(0.001)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        dbt_runner.invoke(data_dir, COMPILE, target="compile")
    finally:
        done.set()
        watcher.join()
    assert not seen, {k: v for k, v in seen[0].items() if before.get(k) != v}
    assert dict(os.environ) == before


def test_threads_reach_dbt_as_an_argument(data_dir: Path) -> None:
    dbt_runner.invoke(data_dir, COMPILE, target="compile", threads=3)
    log = (dbt_runner.artefact_dir(data_dir) / "logs" / "dbt.log").read_text()
    assert "Concurrency: 3 threads" in log
    assert (dbt_runner.artefact_dir(data_dir) / "compile" / "compiled").is_dir()  # --target-path


def test_a_malformed_thread_count_in_the_environment_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("M4AGENT_DBT_THREADS", "many")
    with pytest.raises(Exception, match="M4AGENT_DBT_THREADS must be a whole number of at least 1, not 'many'"):
        dbt_runner.default_threads()
