"""``shell``: runs a user's script inside the container, for home-made agents.

The script (option ``script=PATH`` in the matrix, ``--agent-option script=PATH`` on the
command line) is mounted read-only and run with bash in the workspace, with the
instruction's path as its first argument and in ``$M4AGENT_INSTRUCTION``. Its digest
is part of the agent version, so editing the script makes new runs rather than
mixing results of two scripts under one key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from m4agent.errors import M4AgentError
from m4agent.harness.agents.base import Agent, AgentContext

SCRIPT_PATH = "/opt/m4agent-agent/run.sh"


def _script(options: Mapping[str, str]) -> Path:
    given = options.get("script")
    if not given:
        raise M4AgentError("the shell agent needs its script: --agent-option script=PATH "
                           "(or `options = {script = \"PATH\"}` in the matrix)")
    path = Path(given).expanduser().resolve()
    if not path.is_file():
        raise M4AgentError(f"shell agent script {path} is not a file")
    return path


class Shell(Agent):
    def command(self, ctx: AgentContext) -> list[str]:
        return ["bash", SCRIPT_PATH, ctx.instruction_file]

    def mounts(self, options: Mapping[str, str]) -> list[tuple[Path, str]]:
        return [(_script(options), SCRIPT_PATH)]

    def version_for(self, options: Mapping[str, str]) -> str:
        digest = hashlib.sha256(_script(options).read_bytes()).hexdigest()[:12]
        return f"{self.version}+{digest}"


ADAPTER = Shell(name="shell", version="1", description="runs your script in the container (home-made agents)")
