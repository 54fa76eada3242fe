"""``claude``: Claude Code (``@anthropic-ai/claude-code``) in print mode with a stream-json trace.

Command line as M4Bench runs it (``HARNESS.md`` section 1.8): ``claude -p`` with the same
allowed and disallowed tools, ``--model``, ``--effort`` and ``--output-format
stream-json --verbose``, the instruction last. Non-essential traffic (telemetry, update
checks) is switched off, so the egress log holds the model API only. Auth: an API key
(``ANTHROPIC_API_KEY`` in the secrets file) or the subscription login files.

Usage: the stream repeats a message's usage on each of its content blocks and reports
the input counts again in the final ``result`` event, so summing every event (as
M4Bench does) counts input several times and misses cache creation. The ledger takes
the ``result`` event's totals, which the CLI sums once per API call; without one (a
killed run) it takes each assistant message once, by message id, with its last usage
(whose output count is the stream's first, so a killed run's output is undercounted).

Option ``max_budget_usd``: the per-run spending cap, passed to ``--max-budget-usd`` (the CLI
stops itself when the run has spent it).
"""

from __future__ import annotations

from m4agent.harness.agents.base import AgentContext
from m4agent.harness.agents.cli_agent import CliAgent, json_events
from m4agent.harness.ledger import Usage
from m4agent.harness.trajectory import Step, text_of, tool_input

ALLOWED_TOOLS = "Bash(*),Read,Write,Glob,Grep,Edit"
DISALLOWED_TOOLS = ("WebFetch,WebSearch,Bash(curl *),Bash(wget *),Bash(python -c *),Bash(python3 -c *),"
                    "Bash(node -e *),Bash(npx *)")


def _usage_of(block: object) -> Usage:
    if not isinstance(block, dict):
        return Usage()
    return Usage(input=int(block.get("input_tokens") or 0), cache_read=int(block.get("cache_read_input_tokens") or 0),
                 cache_write=int(block.get("cache_creation_input_tokens") or 0),
                 output=int(block.get("output_tokens") or 0))


class Claude(CliAgent):
    def argv(self, ctx: AgentContext, reasoning: str | None) -> list[str]:
        argv = ["claude", "-p", "--allowedTools", ALLOWED_TOOLS]
        if ctx.model != "default":
            argv += ["--model", ctx.model]
        if reasoning:
            argv += ["--effort", reasoning]
        if ctx.options.get("max_budget_usd"):  # the per-run budget cap, enforced by the CLI itself
            argv += ["--max-budget-usd", ctx.options["max_budget_usd"]]
        return argv + ["--disallowedTools", DISALLOWED_TOOLS, "--output-format", "stream-json", "--verbose",
                       ctx.instruction]

    def environment(self, ctx: AgentContext) -> dict[str, str]:
        return {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "DISABLE_ERROR_REPORTING": "1", "DISABLE_TELEMETRY": "1"}

    def usage(self, trace_text: str) -> dict[str, int]:
        messages: dict[str, Usage] = {}
        result: Usage | None = None
        turns = 0
        for event in json_events(trace_text):
            if event.get("type") == "result":
                result = _usage_of(event.get("usage"))
                turns = int(event.get("num_turns") or 0)
            elif event.get("type") == "assistant" and isinstance(event.get("message"), dict):
                message = event["message"]
                messages[str(message.get("id"))] = _usage_of(message.get("usage"))
        if result is not None:
            return Usage(**{**result.as_dict(), "requests": turns or len(messages)}).as_dict()
        total = Usage()
        for usage in messages.values():
            total = total + usage
        return Usage(**{**total.as_dict(), "requests": len(messages)}).as_dict()

    def steps(self, trace_text: str) -> list[Step]:
        """Text and tool calls of each assistant message (once per message id), results joined by tool id."""
        steps: list[Step] = []
        calls: dict[str, Step] = {}
        seen: dict[str, int] = {}
        for event in json_events(trace_text):
            message = event.get("message")
            if not isinstance(message, dict):
                if event.get("type") == "result" and event.get("is_error"):
                    steps.append(Step("error", str(event.get("result", ""))))
                continue
            if event.get("type") == "assistant":
                blocks = message.get("content") if isinstance(message.get("content"), list) else []
                first = str(message.get("id")) not in seen
                seen.setdefault(str(message.get("id")), len(steps))
                for block in (b for b in blocks if isinstance(b, dict)):
                    if block.get("type") == "text":
                        steps.append(Step("text", block.get("text", "")))
                    elif block.get("type") == "tool_use":
                        step = Step("tool", tool=block.get("name"), input=tool_input(block.get("input")))
                        calls[str(block.get("id"))] = step
                        steps.append(step)
                if first and steps[seen[str(message.get("id"))]:]:
                    steps[seen[str(message.get("id"))]].tokens = _usage_of(message.get("usage")).as_dict()
            elif event.get("type") == "user":
                for block in message.get("content") if isinstance(message.get("content"), list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        step = calls.get(str(block.get("tool_use_id")))
                        if step is not None:
                            step.output = text_of(block.get("content"))
                            step.ts = event.get("timestamp") if isinstance(event.get("timestamp"), str) else None
        return steps

    def reported_cost(self, trace_text: str) -> float | None:
        for event in json_events(trace_text):
            if event.get("type") == "result" and isinstance(event.get("total_cost_usd"), int | float):
                return float(event["total_cost_usd"])
        return None

    def model_used(self, trace_text: str, requested: str) -> str:
        for event in json_events(trace_text):
            if event.get("type") == "system" and isinstance(event.get("model"), str):
                return str(event["model"])
        return requested

    def error_texts(self, trace_text: str) -> list[str]:
        texts = super().error_texts(trace_text)
        for event in json_events(trace_text):
            if event.get("type") == "result" and event.get("is_error"):
                status = event.get("api_error_status")
                texts.append(f"{status or ''} {event.get('result') or ''} {event.get('subtype') or ''}")
            elif event.get("type") == "assistant" and event.get("error"):
                texts.append(str(event.get("error")))
        return texts


ADAPTER = Claude(
    name="claude",
    version="1+claude-code-2.1.119",
    description="Claude Code (claude -p, stream-json trace)",
    skills_dir=".claude/skills",
    providers=("anthropic",),
    auth_files=(".claude/.credentials.json", ".claude.json"),
    cli_version="2.1.119",
    provider="anthropic",
    key_variable="ANTHROPIC_API_KEY",
    default_model="claude-sonnet-4-6",
    reasoning_levels=("low", "medium", "high", "xhigh", "max"),
    reasoning_auto="medium",
    extra_options=frozenset({"max_budget_usd"}),
)
