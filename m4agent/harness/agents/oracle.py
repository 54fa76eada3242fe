"""``oracle``: copies the task's reference export into ``output.csv``.

The harness's own end-to-end check: every run of it must score 1.0, through the
same container, workspace, egress and grading as any agent. It reads the answer,
so it is never publishable and the contamination lint's truth check is off for it.
"""

from __future__ import annotations

from m4agent import layout
from m4agent.harness.agents.base import Agent, AgentContext


class Oracle(Agent):
    def command(self, ctx: AgentContext) -> list[str]:
        return ["cp", f"{layout.SOLUTION}/{layout.OUTPUT_NAME}", f"{layout.WORKSPACE}/{layout.OUTPUT_NAME}"]


ADAPTER = Oracle(
    name="oracle",
    version="1",
    description="writes the reference export (the harness's own check; never publishable)",
    publishable=False,
    needs_solution=True,
)
