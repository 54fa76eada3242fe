"""The agents: each module of this package defines ``ADAPTER``; this finds them all."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from m4agent.errors import M4AgentError
from m4agent.harness.agents.base import Agent, AgentContext

__all__ = ["Agent", "AgentContext", "all_agents", "get_agent"]


@cache
def all_agents() -> dict[str, Agent]:
    found: dict[str, Agent] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name == "base":
            continue
        adapter = getattr(importlib.import_module(f"{__name__}.{module.name}"), "ADAPTER", None)
        if isinstance(adapter, Agent):
            found[adapter.name] = adapter
    return dict(sorted(found.items()))


def get_agent(name: str) -> Agent:
    agents = all_agents()
    if name not in agents:
        raise M4AgentError(f"unknown agent {name!r}; known agents: {', '.join(agents)}")
    return agents[name]
