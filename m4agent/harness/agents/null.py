"""``null``: does nothing and writes nothing; every run must end ``no_output`` with reward 0."""

from __future__ import annotations

from m4agent.harness.agents.base import Agent, AgentContext


class Null(Agent):
    def command(self, ctx: AgentContext) -> list[str]:
        return ["true"]


ADAPTER = Null(name="null", version="1", description="writes nothing (a floor for every task)")
