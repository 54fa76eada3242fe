"""Shared fixtures: the default synthetic databases, built once per test session."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from m4agent.data.synth import synthesize

DEFAULT_PATIENTS = 200
DEFAULT_SEED = 42


@pytest.fixture(scope="session")
def mimic_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default synthetic MIMIC-IV (200 patients, seed 42); treat it as read-only, copy it to write."""
    data_dir = tmp_path_factory.mktemp("mimic_seed42")
    return synthesize("mimic-iv", data_dir, patients=DEFAULT_PATIENTS, seed=DEFAULT_SEED)


@pytest.fixture(scope="session")
def engine() -> Any:
    """The Docker engine with the agent image, for the modules that run containers (fails without them)."""
    from support.harness import docker_engine

    return docker_engine()


@pytest.fixture(scope="session")
def harness_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small data directory with every reference built, shared by the modules that run campaigns
    (each campaign has a folder of its own; grading and the workspace exports take the data
    directory's lock)."""
    from support.harness import build_data_dir

    return build_data_dir(tmp_path_factory.mktemp("harness_data"))


@pytest.fixture(scope="session")
def graded_data_dir(request: pytest.FixtureRequest) -> Path:
    """Built references to grade against: $M4AGENT_TEST_DATA_DIR when set (e.g. a larger build of
    one's own), else the session's shared build (harness_data_dir)."""
    given = os.environ.get("M4AGENT_TEST_DATA_DIR")
    if given:
        return Path(given)
    return request.getfixturevalue("harness_data_dir")
