"""Shared fixtures: the default synthetic databases, built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4agent.synth import synthesize

DEFAULT_PATIENTS = 200
DEFAULT_SEED = 42


@pytest.fixture(scope="session")
def mimic_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default synthetic MIMIC-IV (200 patients, seed 42); treat it as read-only, copy it to write."""
    data_dir = tmp_path_factory.mktemp("mimic_seed42")
    return synthesize("mimic-iv", data_dir, patients=DEFAULT_PATIENTS, seed=DEFAULT_SEED)
