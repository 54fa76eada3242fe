"""``pi``: the pi coding agent (``@mariozechner/pi-coding-agent``), for local models and any
OpenAI-compatible or cloud endpoint, with a JSON-lines trace.

Command line as M4Bench runs it (``HARNESS.md`` section 1.8): ``pi --provider P
--no-context-files --no-themes --no-prompt-templates --no-extensions --skill .pi/skills
[--model M] -p``, plus ``--mode json`` for a structured trace and ``--no-session``.

Options: ``provider`` (``ollama`` by default, as M4Bench's pi-ollama; or
``openai-compatible``, ``anthropic``, ``openai``, ``google``) and, for ``ollama`` and
``openai-compatible``, ``base_url`` (an ``https://`` URL: the egress proxy only opens
TLS tunnels). For those two, the run's home gets ``.pi/agent/models.json`` naming the
endpoint with pi's ``openai-completions`` API, as M4Bench writes it. Unlike M4Bench,
such runs are publishable: the endpoint is reached through the egress proxy like any
model host, allowed by a route of the campaign (host to address:port) and logged.
Reasoning: ``--thinking LEVEL`` (``auto`` leaves the provider default).

Usage: each assistant ``message_end`` event carries that call's ``usage`` (``input``
uncached, ``cacheRead``, ``cacheWrite``, ``output``) and pi's own cost estimate.
"""

from __future__ import annotations

import json
from urllib.parse import urlparse

from m4agent.errors import M4AgentError
from m4agent.harness.agents.base import AgentContext
from m4agent.harness.agents.cli_agent import CliAgent, json_events, provider_probe
from m4agent.harness.ledger import Usage
from m4agent.harness.trajectory import Step, text_of, tool_input

LOCAL_PROVIDERS = ("ollama", "openai-compatible")
CLOUD_HOSTS = {"anthropic": "anthropic", "openai": "openai", "google": "google"}  # pi's name -> model_hosts.toml
CLOUD_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "google": "GEMINI_API_KEY"}  # pi reads these
PROVIDERS = (*LOCAL_PROVIDERS, *CLOUD_HOSTS)


class Pi(CliAgent):
    def check_options(self, options) -> None:  # type: ignore[no-untyped-def]
        super().check_options(options)
        provider = options.get("provider", "ollama")
        if provider not in PROVIDERS:
            raise M4AgentError(f"agent pi: provider must be one of {', '.join(PROVIDERS)}, not {provider!r}")
        if provider in LOCAL_PROVIDERS:
            url = urlparse(options.get("base_url", ""))
            if url.scheme != "https" or not url.hostname:
                raise M4AgentError("agent pi: a local provider needs base_url=https://HOST[:PORT]/v1 (the egress "
                                   "proxy opens TLS tunnels only; route HOST to the endpoint in the campaign)")

    def argv(self, ctx: AgentContext, reasoning: str | None) -> list[str]:
        provider = ctx.options.get("provider", "ollama")
        argv = ["pi", "--provider", provider, "--no-context-files", "--no-themes", "--no-prompt-templates",
                "--no-extensions", "--no-session", "--skill", f"{self.skills_dir}"]
        if ctx.model != "default":
            argv += ["--model", ctx.model]
        if reasoning:
            argv += ["--thinking", reasoning]
        return argv + ["--mode", "json", "-p", ctx.instruction]

    def home_files(self, ctx: AgentContext) -> dict[str, str]:
        provider = ctx.options.get("provider", "ollama")
        if provider not in LOCAL_PROVIDERS:
            return {}
        models = {"providers": {provider: {
            "baseUrl": ctx.options["base_url"], "api": "openai-completions", "apiKey": provider,
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": ctx.model}]}}}
        return {".pi/agent/models.json": json.dumps(models, indent=2)}

    def probe_request(self, options, model: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
        """A local endpoint's one-token chat completion; a cloud provider's own probe."""
        provider = options.get("provider", "ollama")
        if provider not in LOCAL_PROVIDERS:
            return provider_probe(CLOUD_HOSTS[provider], model)
        if model == "default":
            raise M4AgentError("agent pi: a local provider needs a model name (--model)")
        return {"url": options["base_url"].rstrip("/") + "/chat/completions",
                "headers": {"Authorization": f"Bearer {provider}", "content-type": "application/json"},
                "body": {"model": model, "max_tokens": 1,
                         "messages": [{"role": "user", "content": "Reply with one word."}]}}

    def command(self, ctx: AgentContext) -> list[str]:
        command = super().command(ctx)
        # pi wants its skills folder to exist; a condition without skills leaves none
        command[2] = command[2].replace('exec "$@"', f'mkdir -p {self.skills_dir}\nexec "$@"')
        return command

    def providers_for(self, options) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
        """A cloud provider's model hosts (model_hosts.toml); a local endpoint is reached by a route only."""
        provider = options.get("provider", "ollama")
        return () if provider in LOCAL_PROVIDERS else (CLOUD_HOSTS[provider],)

    def key_variables(self, options) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
        """A cloud provider's key; a local endpoint needs none."""
        provider = options.get("provider", "ollama")
        return () if provider in LOCAL_PROVIDERS else (CLOUD_KEYS[provider],)

    def pricing_provider(self, options) -> str:  # type: ignore[no-untyped-def]
        return str(options.get("provider", "ollama"))

    def _assistant_messages(self, trace_text: str) -> list[dict[str, object]]:
        return [e["message"] for e in json_events(trace_text)
                if e.get("type") == "message_end" and isinstance(e.get("message"), dict)
                and e["message"].get("role") == "assistant"]

    def usage(self, trace_text: str) -> dict[str, int]:
        total = Usage()
        for message in self._assistant_messages(trace_text):
            usage = message.get("usage")
            if isinstance(usage, dict):
                total = total + Usage(input=int(usage.get("input") or 0), cache_read=int(usage.get("cacheRead") or 0),
                                      cache_write=int(usage.get("cacheWrite") or 0),
                                      output=int(usage.get("output") or 0), requests=1)
        return total.as_dict()

    def steps(self, trace_text: str) -> list[Step]:
        """Each assistant message's text and tool calls (with its usage), tool results joined by call id."""
        steps: list[Step] = []
        calls: dict[str, Step] = {}
        for event in json_events(trace_text):
            message = event.get("message")
            if event.get("type") != "message_end" or not isinstance(message, dict):
                continue
            if message.get("role") == "assistant":
                start = len(steps)
                blocks = message.get("content") if isinstance(message.get("content"), list) else []
                for block in (b for b in blocks if isinstance(b, dict)):
                    if block.get("type") == "text":
                        steps.append(Step("text", str(block.get("text", ""))))
                    elif block.get("type") == "toolCall":
                        step = Step("tool", tool=str(block.get("name")), input=tool_input(block.get("arguments")))
                        calls[str(block.get("id"))] = step
                        steps.append(step)
                if message.get("stopReason") == "error":
                    steps.append(Step("error", str(message.get("errorMessage", ""))))
                usage = message.get("usage")
                if steps[start:] and isinstance(usage, dict):
                    steps[start].tokens = {k: int(v) for k, v in usage.items() if isinstance(v, int)}
            elif message.get("role") == "toolResult" and str(message.get("toolCallId")) in calls:
                calls[str(message.get("toolCallId"))].output = text_of(message.get("content"))
        return steps

    def reported_cost(self, trace_text: str) -> float | None:
        costs = [m["usage"]["cost"].get("total") for m in self._assistant_messages(trace_text)  # type: ignore[index]
                 if isinstance(m.get("usage"), dict) and isinstance(m["usage"].get("cost"), dict)]  # type: ignore[union-attr]
        costs = [c for c in costs if isinstance(c, int | float)]
        return float(sum(costs)) if costs and sum(costs) > 0 else None

    def model_used(self, trace_text: str, requested: str) -> str:
        for message in self._assistant_messages(trace_text):
            if isinstance(message.get("model"), str):
                return str(message["model"])
        return requested

    def error_texts(self, trace_text: str) -> list[str]:
        texts = super().error_texts(trace_text)
        for message in self._assistant_messages(trace_text):
            if message.get("stopReason") == "error":
                texts.append(str(message.get("errorMessage", "error")))
        return texts


ADAPTER = Pi(
    name="pi",
    version="1+pi-coding-agent-0.70.2",
    description="pi coding agent (local models through Ollama or any OpenAI-compatible endpoint; json trace)",
    skills_dir=".pi/skills",
    providers=(),
    cli_version="0.70.2",
    provider="ollama",
    reasoning_levels=("off", "minimal", "low", "medium", "high", "xhigh"),
    extra_options=frozenset({"provider", "base_url"}),
)
