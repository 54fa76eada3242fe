"""``codex``: OpenAI Codex CLI (``@openai/codex``) in ``exec`` mode with a JSON-lines trace.

Command line as M4Bench runs it in a container (``HARNESS.md`` section 1.8): web search
off, plugins off, a developer note that there is no network, ``-m``, reasoning effort by
``-c model_reasoning_effort``, ``sandbox_mode="danger-full-access"`` (the container is
the sandbox; bubblewrap cannot make user namespaces in it), ``--json -C /workspace``.
Auth: ``OPENAI_API_KEY`` from the secrets file, or the ChatGPT login ``~/.codex/auth.json``.
``codex exec`` sends an API key only from ``CODEX_API_KEY`` (the wire showed 0.124 sending
none with ``OPENAI_API_KEY`` alone), so the key is passed under both names, as M4Bench does.
Codex is a Rust binary: it trusts an extra CA through ``SSL_CERT_FILE``.

Usage: ``turn.completed`` events carry the turn's totals; ``input_tokens`` includes
``cached_input_tokens`` (OpenAI reports no cache writes), and reasoning is part of
``output_tokens``.
"""

from __future__ import annotations

from m4agent import layout
from m4agent.harness.agents.base import AgentContext
from m4agent.harness.agents.cli_agent import CliAgent, json_events
from m4agent.harness.ledger import Usage
from m4agent.harness.trajectory import Step

NO_NETWORK_NOTE = ("You have no network access: no web search, no downloads, no package installs. "
                   "Work only with the local files and the database in the working directory.")


class Codex(CliAgent):
    def argv(self, ctx: AgentContext, reasoning: str | None) -> list[str]:
        argv = ["codex", "exec", "--skip-git-repo-check", "-c", 'web_search="disabled"',
                "-c", "tools.web_search=false", "-c", f"developer_instructions={_toml_string(NO_NETWORK_NOTE)}",
                "--disable", "plugins"]
        if ctx.model != "default":
            argv += ["-m", ctx.model]
        if reasoning:
            argv += ["-c", f'model_reasoning_effort="{reasoning}"']
        return argv + ["-c", 'sandbox_mode="danger-full-access"', "--json", "-C", layout.WORKSPACE,
                       ctx.instruction]

    def shell_prelude(self) -> list[str]:
        return ['if [ -n "${OPENAI_API_KEY:-}" ] && [ -z "${CODEX_API_KEY:-}" ]; then '
                'export CODEX_API_KEY="$OPENAI_API_KEY"; fi']

    def home_files(self, ctx: AgentContext) -> dict[str, str]:
        # Codex needs its home to exist; the config keeps it off the ChatGPT feature endpoints
        return {".codex/config.toml": 'check_for_update_on_startup = false\n[analytics]\nenabled = false\n'}

    def usage(self, trace_text: str) -> dict[str, int]:
        total = Usage()
        for event in json_events(trace_text):
            usage = event.get("usage")
            if event.get("type") == "turn.completed" and isinstance(usage, dict):
                cached = int(usage.get("cached_input_tokens") or 0)
                total = total + Usage(input=int(usage.get("input_tokens") or 0) - cached, cache_read=cached,
                                      output=int(usage.get("output_tokens") or 0),
                                      reasoning=int(usage.get("reasoning_output_tokens") or 0), requests=1)
        return total.as_dict()

    def steps(self, trace_text: str) -> list[Step]:
        """Completed items (commands with their output, messages, reasoning); each turn's usage on its last step."""
        steps: list[Step] = []
        for event in json_events(trace_text):
            item = event.get("item")
            if event.get("type") == "item.completed" and isinstance(item, dict):
                if item.get("type") == "command_execution":
                    steps.append(Step("tool", tool="shell", input=str(item.get("command", "")),
                                      output=str(item.get("aggregated_output", ""))))
                elif item.get("type") in ("agent_message", "reasoning"):
                    steps.append(Step("text", str(item.get("text", ""))))
                elif item.get("type") == "error":
                    steps.append(Step("error", str(item.get("message", ""))))
            elif event.get("type") in ("turn.failed", "error") and "Reconnecting" not in str(event):
                steps.append(Step("error", str(event.get("error", event.get("message", "")))))
            elif event.get("type") == "turn.completed" and steps and isinstance(event.get("usage"), dict):
                steps[-1].tokens = {k: int(v) for k, v in event["usage"].items() if isinstance(v, int)}
        return steps

    def error_texts(self, trace_text: str) -> list[str]:
        texts = []
        for event in json_events(trace_text):
            if event.get("type") == "error":
                texts.append(str(event.get("message", "")))
            elif event.get("type") == "turn.failed":
                texts.append(str(event.get("error", "")))
        # stderr lines of the Rust logger: "... ERROR codex_...: <message>"
        texts += [line for line in trace_text.splitlines() if " ERROR " in line and not line.startswith("{")]
        return [t for t in texts if "Reconnecting..." not in t or "429" in t or "quota" in t]


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


ADAPTER = Codex(
    name="codex",
    version="1+codex-0.124.0",
    description="OpenAI Codex CLI (codex exec --json)",
    skills_dir=".codex/skills",
    providers=("openai",),
    auth_files=(".codex/auth.json",),
    cli_version="0.124.0",
    provider="openai",
    key_variable="OPENAI_API_KEY",
    default_model="gpt-5.4",
    reasoning_levels=("minimal", "low", "medium", "high", "xhigh"),
    reasoning_auto="medium",
    ca_env=("SSL_CERT_FILE",),
)
