"""The agent image: its content-hash tag, whether the engine has it, and what it holds.

The image is defined by four files of the repository (``IMAGE_FILES``): the pins in
``docker/versions.env``, ``docker/provision.sh`` that installs them, and the two ways
to run it, ``docker/Dockerfile`` and ``scripts/build_image.sh``. Its tag is
``m4agent-agent:<12 hex digits>``, a hash of those files, so a change to any of them
names a new image and a stale one is never used by mistake. ``scripts/build_image.sh``
computes the same hash (``sha256sum FILES | sha256sum``) and tags what it builds so.

``cli_versions`` reads the versions from the image itself (not from the pins), for a
campaign's lock file: what ran is what is recorded.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from docker.client import DockerClient
from docker.errors import ContainerError, ImageNotFound

from m4agent import layout
from m4agent.errors import M4AgentError

REPOSITORY = "m4agent-agent"
LATEST = f"{REPOSITORY}:latest"

# The files that define the image, in the order scripts/build_image.sh hashes them.
IMAGE_FILES = ("docker/versions.env", "docker/Dockerfile", "docker/provision.sh", "scripts/build_image.sh")

# What cli_versions reports, and the docker/versions.env key pinning each (None: not pinned).
COMPONENT_PINS: dict[str, str | None] = {
    "python": None,
    "duckdb": "DUCKDB_VERSION",
    "pandas": "PANDAS_VERSION",
    "node": "NODE_VERSION",
    "npm": "NPM_VERSION",
    "claude-code": "CLAUDE_CODE_VERSION",
    "gemini-cli": "GEMINI_CLI_VERSION",
    "codex": "CODEX_VERSION",
    "pi-coding-agent": "PI_CODING_AGENT_VERSION",
}

_VERSION = re.compile(r"\d+\.\d+\.\d+[0-9A-Za-z.+-]*")

# Runs inside the image with its own python3: each component's raw version text, as JSON.
_PROBE = """
import json, subprocess
import duckdb, pandas, platform
def ask(*argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return "error: " + str(error)
    return (done.stdout.strip() or done.stderr.strip()) if done.returncode == 0 else (
        "error: exit %d: %s" % (done.returncode, (done.stderr or done.stdout).strip()[-300:]))
print(json.dumps({
    "python": platform.python_version(),
    "duckdb": duckdb.__version__,
    "pandas": pandas.__version__,
    "node": ask("node", "--version"),
    "npm": ask("npm", "--version"),
    "claude-code": ask("claude", "--version"),
    "gemini-cli": ask("gemini", "--version"),
    "codex": ask("codex", "--version"),
    "pi-coding-agent": ask("pi", "--version"),
}))
"""


def repo_root() -> Path:
    """The checkout that holds the image's files (the package is installed editable from it)."""
    root = Path(__file__).resolve().parents[2]
    missing = [name for name in IMAGE_FILES if not (root / name).is_file()]
    if missing:
        raise M4AgentError(
            f"the agent image's files ({', '.join(missing)}) are not beside the m4agent package at {root}; "
            "install m4agent from a checkout with `pip install -e .`"
        )
    return root


def image_tag(root: Path | None = None) -> str:
    """``m4agent-agent:<hash>``: the first 12 hex digits of sha256 over ``sha256sum IMAGE_FILES``'s lines."""
    root = repo_root() if root is None else root
    lines = "".join(
        f"{hashlib.sha256((root / name).read_bytes()).hexdigest()}  {name}\n" for name in IMAGE_FILES
    )
    return f"{REPOSITORY}:{hashlib.sha256(lines.encode()).hexdigest()[:12]}"


def pinned_versions(root: Path | None = None) -> dict[str, str]:
    """The KEY=value pins of ``docker/versions.env`` (comment and blank lines skipped)."""
    root = repo_root() if root is None else root
    pins: dict[str, str] = {}
    for line in (root / "docker" / "versions.env").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            pins[key] = value
    return pins


def image_present(client: DockerClient, tag: str | None = None) -> bool:
    """Whether the engine has the image of the current definition (or ``tag``)."""
    try:
        client.images.get(image_tag() if tag is None else tag)
    except ImageNotFound:
        return False
    return True


def ensure_image(client: DockerClient, root: Path | None = None) -> str:
    """The current image's tag; raises ``M4AgentError`` naming how to build it when it is missing.

    ``root`` is the checkout whose files define the image (default: this package's).
    """
    tag = image_tag(root)
    if not image_present(client, tag):
        raise M4AgentError(
            f"the agent image {tag} is not built (its definition in docker/ or scripts/build_image.sh changed, "
            "or it was never built); build it with `scripts/build_image.sh` (no registry needed), "
            f"or with a normal Docker: `docker build -f docker/Dockerfile -t {tag} .`"
        )
    return tag


def image_id(client: DockerClient, tag: str) -> str:
    """The engine's id of image ``tag`` (``sha256:...``), for a lock file: the exact bytes that ran."""
    try:
        return str(client.images.get(tag).id)
    except ImageNotFound as error:
        raise M4AgentError(f"image {tag} not found; build it with `scripts/build_image.sh`") from error


def cli_versions(client: DockerClient, tag: str) -> dict[str, str]:
    """The versions in image ``tag``, read by running it: python, duckdb, pandas, node, npm, each agent CLI.

    One throwaway container with no network and a read-only root (home and /tmp on
    tmpfs, as a run has them). A CLI's version is the first ``X.Y.Z...`` in what its
    ``--version`` prints; a CLI that fails raises ``M4AgentError`` with its output.
    """
    try:
        out = client.containers.run(
            tag,
            ["python3", "-c", _PROBE],
            network_mode="none",
            read_only=True,
            tmpfs={layout.TMP: "", layout.HOME: f"uid={layout.AGENT_UID},gid={layout.AGENT_UID}"},
            # the engine removes it when it exits, even if this process is killed meanwhile (a campaign
            # killed at its start left one such unlabelled container per kill with remove=True)
            auto_remove=True,
            stdout=True,
            stderr=False,
        )
    except ImageNotFound as error:
        raise M4AgentError(f"image {tag} not found; build it with `scripts/build_image.sh`") from error
    except ContainerError as error:
        raise M4AgentError(f"reading the versions in image {tag} failed: {error}") from error
    raw: dict[str, str] = json.loads(out)
    versions: dict[str, str] = {}
    for component, text in raw.items():
        found = _VERSION.search(text)
        if text.startswith("error:") or found is None:
            raise M4AgentError(f"image {tag}: `{component} --version` gave no version ({text!r}); rebuild the image")
        versions[component] = found.group(0)
    return versions
