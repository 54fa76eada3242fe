"""``gemini``: Gemini CLI (``@google/gemini-cli``) in non-interactive YOLO mode.

Command line as M4Bench runs it (``HARNESS.md`` section 1.8): ``--approval-mode yolo
--skip-trust [-m M] -p``, plus ``--output-format stream-json`` so the trace is
structured (M4Bench kept plain text and had no token counts for Gemini) and ``--extensions
none`` (the CLI's one switch for all extensions; its settings only list extensions by name
in ``extensions.disabled``). The run's home gets ``.gemini/settings.json``: the auth type,
usage statistics and telemetry off, skills on. Auth: ``GEMINI_API_KEY`` from the secrets file, or the
Google login files (``oauth_creds.json``). Reasoning: the provider's default (M4Bench's
``auto``); Gemini CLI has no effort flag.

Usage: the final ``result`` event's ``stats``: ``input_tokens`` includes ``cached``;
``output_tokens`` counts candidates only, and Gemini CLI 0.39 names no thinking count
in this stream, but its ``total_tokens`` includes thinking: the ledger's reasoning is
what the total holds beyond input and candidates, and output is candidates plus it.
"""

from __future__ import annotations

import json

from m4agent.harness.agents.base import AgentContext
from m4agent.harness.agents.cli_agent import CliAgent, json_events
from m4agent.harness.ledger import Usage
from m4agent.harness.trajectory import Step, tool_input


class Gemini(CliAgent):
    def argv(self, ctx: AgentContext, reasoning: str | None) -> list[str]:
        argv = ["gemini", "--approval-mode", "yolo", "--skip-trust"]
        if ctx.model != "default":
            argv += ["-m", ctx.model]
        return argv + ["--extensions", "none", "--output-format", "stream-json", "-p", ctx.instruction]

    def home_files(self, ctx: AgentContext) -> dict[str, str]:
        auth = "oauth-personal" if ctx.options.get("auth") == "subscription" else "gemini-api-key"
        settings = {"security": {"auth": {"selectedType": auth}},
                    "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
                    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                    "skills": {"enabled": True}}
        return {".gemini/settings.json": json.dumps(settings, indent=2)}

    def usage(self, trace_text: str) -> dict[str, int]:
        for event in json_events(trace_text):
            stats = event.get("stats")
            if event.get("type") == "result" and isinstance(stats, dict):
                cached = int(stats.get("cached") or 0)
                total_input = int(stats.get("input_tokens") or 0)
                candidates = int(stats.get("output_tokens") or 0)
                # thinking is in the total but neither in input nor in output: what is left is thoughts
                thoughts = max(0, int(stats.get("total_tokens") or 0) - total_input - candidates
                               - int(stats.get("tool_tokens") or 0))
                return Usage(input=total_input - cached, cache_read=cached, output=candidates + thoughts,
                             reasoning=thoughts, requests=sum(1 for e in json_events(trace_text) if e.get("type") == "tool_use") + 1
                             ).as_dict()
        return Usage().as_dict()

    def steps(self, trace_text: str) -> list[Step]:
        """Tool calls with their status, assistant text (its streamed pieces joined)."""
        steps: list[Step] = []
        calls: dict[str, Step] = {}
        for event in json_events(trace_text):
            kind, ts = event.get("type"), event.get("timestamp")
            stamp = ts if isinstance(ts, str) else None
            if kind == "tool_use":
                step = Step("tool", tool=str(event.get("tool_name")), input=tool_input(event.get("parameters")),
                            ts=stamp)
                calls[str(event.get("tool_id"))] = step
                steps.append(step)
            elif kind == "tool_result" and str(event.get("tool_id")) in calls:
                step = calls[str(event.get("tool_id"))]
                step.output = str(event.get("output") or event.get("error") or event.get("status") or "")
            elif kind == "message" and event.get("role") == "assistant":
                if steps and steps[-1].kind == "text" and event.get("delta"):
                    steps[-1].text += str(event.get("content", ""))
                else:
                    steps.append(Step("text", str(event.get("content", "")), ts=stamp))
            elif kind == "result" and event.get("status") not in (None, "success"):
                steps.append(Step("error", json.dumps(event.get("error", event.get("status")))))
        return steps

    def model_used(self, trace_text: str, requested: str) -> str:
        for event in json_events(trace_text):
            if event.get("type") == "init" and isinstance(event.get("model"), str):
                return str(event["model"])
        return requested

    def error_texts(self, trace_text: str) -> list[str]:
        texts = super().error_texts(trace_text)
        for event in json_events(trace_text):
            if event.get("type") == "result" and event.get("status") not in (None, "success"):
                texts.append(json.dumps(event.get("error", event.get("status"))))
            elif event.get("type") == "error":
                texts.append(json.dumps(event))
        return texts


ADAPTER = Gemini(
    name="gemini",
    version="1+gemini-cli-0.39.1",
    description="Gemini CLI (gemini -p, stream-json trace)",
    skills_dir=".gemini/skills",
    providers=("google",),
    auth_files=(".gemini/oauth_creds.json", ".gemini/google_accounts.json"),
    cli_version="0.39.1",
    provider="google",
    key_variable="GEMINI_API_KEY",
    default_model="gemini-3.1-pro-preview",
)
