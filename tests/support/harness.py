"""Support for the harness's end-to-end tests: a built data directory, the Docker engine, campaign helpers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from m4agent import campaign_folder
from m4agent.harness import campaign
from m4agent.run_folder import RESULT_FILE, read_json

PATIENTS = 30
SEED = 7


def build_data_dir(root: Path) -> Path:
    """A small synthetic MIMIC-IV and eICU with every reference built (about two minutes), made by
    the real ``m4agent quickstart`` command; what it printed is kept beside ``root``
    (:func:`quickstart_record`), so the CLI tests check quickstart without a build of their own."""
    from support.front_door import cli

    done = cli("quickstart", "--patients", str(PATIENTS), "--seed", str(SEED), "--data-dir", str(root),
               timeout=1800)
    for suffix, text in ((".out", done.stdout), (".err", done.stderr), (".rc", str(done.returncode))):
        (root.parent / f"{root.name}.quickstart{suffix}").write_text(text)
    assert done.returncode == 0, done.stderr[-3000:]
    return root


def quickstart_record(root: Path) -> tuple[int, str, str]:
    """(exit code, standard output, standard error) of the quickstart that built ``root``."""
    def read(suffix: str) -> str:
        return (root.parent / f"{root.name}.quickstart{suffix}").read_text()

    return int(read(".rc")), read(".out"), read(".err")


def docker_engine() -> Any:
    """The Docker engine and the agent image; the tests fail (not skip) without them: `scripts/test` starts both."""
    from m4agent.errors import M4AgentError
    from m4agent.harness import container, image

    try:
        engine = container.client()
        image.ensure_image(engine)
    except M4AgentError as exc:
        pytest.fail(f"{exc} (run the suite through scripts/test, which starts Docker and builds the image)")
    return engine


def write_matrix(path: Path, body: str) -> Path:
    path.write_text(body)
    return path


def shell_campaign(folder: Path, tree: Path, script_body: str, tasks: list[str], settings: str = "") -> Path:
    """A planned campaign of the shell agent running ``script_body`` on ``tasks`` (no-skill, native);
    ``settings`` adds lines to ``[campaign]`` or whole tables (``[limits]``...)."""
    script = folder / "agent.sh"
    script.write_text(script_body)
    names = ", ".join(f'"{task}"' for task in tasks)
    matrix = write_matrix(folder / "matrix.toml", f"""
[campaign]
tasks = [{names}]
{settings}

[[agents]]
name = "shell"
options = {{ script = "{script}" }}
""")
    campaign_dir = folder / "campaign"
    campaign.plan(matrix, campaign_dir, tasks_dir=tree)
    return campaign_dir


def campaign_id(campaign_dir: Path) -> str:
    return read_json(campaign_dir / campaign_folder.CAMPAIGN_FILE)["id"]


def results(campaign_dir: Path) -> dict[str, dict[str, Any]]:
    """Every run's result.json by key."""
    found = {}
    for spec in campaign_folder.planned_runs(campaign_dir):
        path = campaign_folder.run_folder(campaign_dir, spec) / RESULT_FILE
        if path.exists():
            found[spec.key] = read_json(path)
    return found


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "m4agent.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)
