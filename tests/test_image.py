"""The agent image as built: who it runs as, what it holds, and that its tag is its content.

Most tests start real containers of ``m4agent-agent:<tag>`` (marked ``docker``), locked as
a run is: no network, read-only root, tmpfs home and /tmp. ``scripts/test`` builds the
image first; without a reachable engine these tests skip, except in CI, where they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from docker.client import DockerClient
from docker.errors import DockerException

from m4agent import layout
from m4agent.errors import M4AgentError
from m4agent.harness.image import (
    COMPONENT_PINS,
    IMAGE_FILES,
    LATEST,
    cli_versions,
    ensure_image,
    image_id,
    image_tag,
    pinned_versions,
    repo_root,
)

REPO = repo_root()

# Each agent CLI: its command and the versions.env key pinning it.
AGENT_CLIS = {
    "claude": "CLAUDE_CODE_VERSION",
    "gemini": "GEMINI_CLI_VERSION",
    "codex": "CODEX_VERSION",
    "pi": "PI_CODING_AGENT_VERSION",
}


@pytest.fixture(scope="module")
def client() -> Iterator[DockerClient]:
    """A client of the running engine; skips (fails in CI) when none answers."""
    try:
        engine = DockerClient.from_env()
        engine.ping()
    except DockerException as error:
        if os.environ.get("CI"):
            pytest.fail(f"no Docker engine answers ({error}); scripts/test starts one")
        pytest.skip(f"no Docker engine answers ({error}); run scripts/test")
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def tag(client: DockerClient) -> str:
    """The image of the current definition, which must have been built."""
    return ensure_image(client)


def run_locked(client: DockerClient, tag: str, command: list[str], stderr: bool = False) -> str:
    """Stdout (and stderr if asked) of ``command`` in a container locked as a run is: no network, read-only root."""
    out: bytes = client.containers.run(
        tag,
        command,
        network_mode="none",
        read_only=True,
        tmpfs={layout.TMP: "", layout.HOME: f"uid={layout.AGENT_UID},gid={layout.AGENT_UID}"},
        remove=True,
        stdout=True,
        stderr=stderr,
    )
    return out.decode().strip()


def copy_definition(destination: Path) -> Path:
    """A copy of the files that define the image, laid out as in the repository."""
    for name in IMAGE_FILES:
        (destination / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, destination / name)
    return destination


def test_image_tag_is_what_build_script_computes() -> None:
    printed = subprocess.run(
        [str(REPO / "scripts" / "build_image.sh"), "--print-tag"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert printed == image_tag()


def test_image_tag_changes_when_a_definition_file_changes(tmp_path: Path) -> None:
    root = copy_definition(tmp_path)
    before = image_tag(root)
    with (root / "docker" / "provision.sh").open("a") as script:
        script.write("# changed\n")
    assert image_tag(root) != before


@pytest.mark.docker
def test_ensure_image_names_the_build_command_when_image_missing(client: DockerClient, tmp_path: Path) -> None:
    root = copy_definition(tmp_path)
    with (root / "docker" / "versions.env").open("a") as pins:
        pins.write("UNBUILT_MARKER=1\n")
    with pytest.raises(M4AgentError, match=r"scripts/build_image\.sh.*docker build -f docker/Dockerfile"):
        ensure_image(client, root)


@pytest.mark.docker
def test_latest_is_the_image_of_the_current_definition(client: DockerClient, tag: str) -> None:
    assert image_id(client, LATEST) == image_id(client, tag)


@pytest.mark.docker
def test_image_runs_as_uid_1000_by_default(client: DockerClient, tag: str) -> None:
    assert run_locked(client, tag, ["id", "-u"]) == str(layout.AGENT_UID)


@pytest.mark.docker
def test_image_starts_in_workspace_with_agent_home(client: DockerClient, tag: str) -> None:
    assert run_locked(client, tag, ["sh", "-c", 'echo "$PWD $HOME"']) == f"{layout.WORKSPACE} {layout.HOME}"


@pytest.mark.docker
def test_tini_is_pid_1(client: DockerClient, tag: str) -> None:
    assert run_locked(client, tag, ["cat", "/proc/1/comm"]) == "tini"


@pytest.mark.docker
@pytest.mark.parametrize("module", ["duckdb", "pandas"])
def test_python_imports_pinned_version(client: DockerClient, tag: str, module: str) -> None:
    found = run_locked(client, tag, ["python3", "-c", f"import {module}; print({module}.__version__)"])
    assert found == pinned_versions()[f"{module.upper()}_VERSION"]


@pytest.mark.docker
@pytest.mark.parametrize("command", sorted(AGENT_CLIS))
def test_agent_cli_answers_pinned_version_offline(client: DockerClient, tag: str, command: str) -> None:
    answer = run_locked(client, tag, [command, "--version"], stderr=True)  # pi answers on stderr
    assert pinned_versions()[AGENT_CLIS[command]] in answer.split()


@pytest.mark.docker
def test_cli_versions_match_the_pins(client: DockerClient, tag: str) -> None:
    pins = pinned_versions()
    found = cli_versions(client, tag)
    expected = {name: pins[key] for name, key in COMPONENT_PINS.items() if key is not None}
    assert {name: found[name] for name in expected} == expected
