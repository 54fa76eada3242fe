"""The adapter contract: everything the harness needs to know about one agent, in one object.

An agent is one module in this package defining ``ADAPTER``, an ``Agent``; adding an
agent touches that one file (the package lists its modules itself). The harness asks
the adapter for its command line, where its skills go, which provider hosts its
egress may reach, which files to collect from its home after a run, and how to read
its trace; everything else (containers, limits, egress, records) is the harness's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class AgentContext:
    """What an adapter may use to build its command line for one attempt."""

    instruction_file: str  # container path of the instruction
    instruction: str
    model: str  # "default": the CLI's own default
    options: Mapping[str, str]  # agent-specific options from the campaign's matrix (e.g. script=)


@dataclass(frozen=True)
class Agent:
    """One agent's declaration. Subclass and override ``command`` (and the parsers) per agent."""

    name: str
    version: str  # the adapter's version; a real CLI adds the version it reads from the binary
    description: str
    skills_dir: str = "skills"  # where skills are placed, relative to the workspace (".claude/skills", ...)
    providers: tuple[str, ...] = ()  # model-host providers its egress may reach (model_hosts.toml)
    calls_models: bool = False  # it talks to a model provider (the real CLIs): its traffic is metered
    publishable: bool = True  # False: never counted in a report (the oracle)
    needs_solution: bool = False  # the reference export is mounted for it (the oracle only)
    collect_from_home: tuple[str, ...] = ()  # files or folders under HOME copied out after the run
    auth_files: tuple[str, ...] = ()  # files under the user's HOME seeded into the run's HOME
    models: tuple[str, ...] = ("default",)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def command(self, ctx: AgentContext) -> list[str]:
        raise NotImplementedError

    def mounts(self, options: Mapping[str, str]) -> list[tuple[Path, str]]:
        """Extra read-only files the agent needs (host path, container path); none by default."""
        return []

    def version_for(self, options: Mapping[str, str]) -> str:
        """The version that enters the run key (the shell agent adds its script's digest)."""
        return self.version

    def providers_for(self, options: Mapping[str, str]) -> tuple[str, ...]:
        """The providers whose model hosts this agent's egress may reach with these options (``providers``
        by default; an agent whose provider is an option, such as pi, says which)."""
        return self.providers

    def key_variables(self, options: Mapping[str, str]) -> tuple[str, ...]:
        """The secrets file entries these options need (an API key's variable); none by default."""
        return ()

    def usage(self, trace_text: str) -> dict[str, int]:
        """Token usage read from the trace; agents without one report nothing."""
        return {}

    def failure(self, trace_text: str) -> tuple[str, str] | None:
        """A provider failure the trace shows, as ``(outcome, reason)`` with outcome ``quota`` or
        ``infra_error``, for an attempt that did not succeed; None: the agent's own end (the default)."""
        return None
