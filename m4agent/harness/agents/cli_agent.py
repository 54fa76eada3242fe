"""What the four real agent CLIs (claude, codex, gemini, pi) share: options, auth seeds, CA, failures.

Each CLI adapter (``claude.py``, ``codex.py``, ``gemini.py``, ``pi.py``) subclasses
``CliAgent`` and says only what is its own: its argv, its home files, its reasoning
levels, and its trace parsers. This module turns the matrix's agent options into the
command the harness runs:

- ``reasoning``: ``auto`` (M4Bench's policy: each adapter's ``reasoning_auto``),
  ``default`` (the CLI's own default, no flag) or a level the adapter accepts;
- ``auth``: ``api-key`` (the default: the key comes from the secrets file, e.g.
  ``ANTHROPIC_API_KEY``) or ``subscription``: the adapter's ``auth_files`` are mounted
  read-only from ``auth_dir`` (default: the invoking user's home) and copied into the
  run's tmpfs HOME before the CLI starts, so they are never in the workspace or the
  results;
- ``ca_cert``: a CA certificate (PEM) the harness's metering proxy trusts, besides the
  system's, for the provider's side of the connection: dry runs against the scripted
  model server (``m4agent model-server``) or a self-hosted endpoint with its own CA.

The CLI itself trusts the system's CAs plus the campaign's metering CA
(``layout.METERING_CA``, mounted by the harness): the egress proxy ends its TLS to read
every exchange (``harness.metering``). The command is ``bash -c`` with a short prelude
(home files, CA bundle) and then ``exec`` of the CLI with stdin from /dev/null, as
M4Bench runs it.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from m4agent import layout
from m4agent.errors import M4AgentError
from m4agent.harness.agents.base import Agent, AgentContext

AGENT_DIR = "/opt/m4agent-agent"
AUTH_DIR = f"{AGENT_DIR}/auth"
SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
BUNDLE = f"{layout.HOME}/.m4agent-ca-bundle.pem"
COMMON_OPTIONS = frozenset({"reasoning", "auth", "auth_dir", "ca_cert"})

# Provider failures as CLIs print them (a message, an HTTP status in an error line): the first match wins.
QUOTA = re.compile(r"insufficient_quota|exceeded your current quota|exhausted your \w+ quota|TerminalQuotaError"
                   r"|credit balance is too low|usage limit reached"
                   r"|quota exceeded|RESOURCE_EXHAUSTED.*quota|QuotaFailure", re.I)
RATE = re.compile(r"\b429\b|rate[ _-]?limit|too many requests|RESOURCE_EXHAUSTED", re.I)
AUTH = re.compile(r"\b401\b|invalid[ _-]?(x-)?api[ _-]?key|incorrect api key|authentication_error"
                  r"|API key not valid|API_KEY_INVALID|unauthorized", re.I)
SERVER = re.compile(r"\b5\d\d\b.{0,80}(error|internal|overloaded|unavailable)|(internal server error|api_error"
                    r"|overloaded_error|server_error|\"INTERNAL\"|service unavailable|stream disconnected|high demand)", re.I)
STALL = re.compile(r"request timed out|timed? ?out waiting|stream idle timeout|ETIMEDOUT|UND_ERR_HEADERS_TIMEOUT", re.I)


def provider_failure(text: str) -> tuple[str, str] | None:
    """The provider failure a CLI's output shows, as ``(outcome, reason)``, or None.

    Quota and rate refusals are ``quota`` (retried later, the provider's queue pauses);
    an invalid key, a server error or a stalled provider are ``infra_error`` (retried,
    never the model's zero).
    """
    for pattern, outcome, reason in ((QUOTA, "quota", "provider quota exhausted"),
                                     (RATE, "quota", "provider rate limit"),
                                     (AUTH, "infra_error", "provider refused the credentials (invalid key)"),
                                     (SERVER, "infra_error", "provider server error"),
                                     (STALL, "infra_error", "provider did not answer (stalled request)")):
        found = pattern.search(text)
        if found:
            return outcome, f"{reason}: {found.group(0)[:80]}"
    return None


@dataclass(frozen=True)
class CliAgent(Agent):
    """A real agent CLI in the image. Subclasses define ``argv`` and may add home files and options."""

    calls_models: bool = True
    cli_version: str = ""  # the version pinned in docker/versions.env (checked against the image by the tests)
    provider: str = ""  # the provider its usage is priced under (ledger)
    key_variable: str = ""  # the secrets file's entry holding its API key (auth=api-key)
    reasoning_levels: tuple[str, ...] = ()  # named levels it accepts; empty: none
    reasoning_auto: str = "provider-default"  # what `auto` resolves to
    extra_options: frozenset[str] = frozenset()
    ca_env: tuple[str, ...] = ("NODE_EXTRA_CA_CERTS",)  # variables naming the extra CA (node CLIs)
    default_model: str = ""  # the model the pinned CLI asks for when given none (as seen on the wire)

    # ---- what subclasses define

    def argv(self, ctx: AgentContext, reasoning: str | None) -> list[str]:
        raise NotImplementedError

    def home_files(self, ctx: AgentContext) -> dict[str, str]:
        """Files written under HOME before the CLI starts (settings), by path relative to HOME."""
        return {}

    def environment(self, ctx: AgentContext) -> dict[str, str]:
        return {}

    def shell_prelude(self) -> list[str]:
        """Shell lines run before the CLI starts, after the secrets are in the environment."""
        return []

    # ---- options

    def check_options(self, options: Mapping[str, str]) -> None:
        if "max_budget_usd" in options and "max_budget_usd" in self.extra_options:
            try:
                if float(options["max_budget_usd"]) <= 0:
                    raise ValueError
            except ValueError:
                raise M4AgentError(f"agent {self.name}: max_budget_usd must be a positive number of dollars") from None
        unknown = set(options) - COMMON_OPTIONS - self.extra_options
        if unknown:
            allowed = ", ".join(sorted(COMMON_OPTIONS | self.extra_options))
            raise M4AgentError(f"agent {self.name}: unknown option(s) {', '.join(sorted(unknown))}; "
                               f"it takes {allowed}")
        auth = options.get("auth", "api-key")
        if auth not in ("api-key", "subscription"):
            raise M4AgentError(f"agent {self.name}: auth must be api-key or subscription, not {auth!r}")
        if auth == "subscription" and not self.auth_files:
            raise M4AgentError(f"agent {self.name} has no subscription login; use auth=api-key")
        self.resolve_reasoning(options.get("reasoning", "auto"))

    def resolve_reasoning(self, wanted: str) -> str | None:
        """The level to pass (None: no flag), from ``auto``, ``default`` or a named level."""
        if wanted == "default":
            return None
        if wanted == "auto":
            return None if self.reasoning_auto == "provider-default" else self.reasoning_auto
        if wanted not in self.reasoning_levels:
            levels = ", ".join(("auto", "default", *self.reasoning_levels))
            raise M4AgentError(f"agent {self.name}: reasoning {wanted!r} is not one of {levels}")
        return wanted

    def key_variables(self, options: Mapping[str, str]) -> tuple[str, ...]:
        """The secrets these options need: the API key's variable with auth=api-key, none with a login."""
        if options.get("auth", "api-key") == "subscription" or not self.key_variable:
            return ()
        return (self.key_variable,)

    def _auth_sources(self, options: Mapping[str, str]) -> list[tuple[Path, str]]:
        if options.get("auth", "api-key") != "subscription":
            return []
        root = Path(options.get("auth_dir") or Path.home()).expanduser().resolve()
        found = [(root / rel, f"{AUTH_DIR}/{i}") for i, rel in enumerate(self.auth_files) if (root / rel).is_file()]
        if not found:
            raise M4AgentError(f"agent {self.name}: auth=subscription but none of {', '.join(self.auth_files)} "
                               f"is under {root}; log in with the CLI first (or set auth_dir)")
        return found

    # ---- the Agent contract

    def mounts(self, options: Mapping[str, str]) -> list[tuple[Path, str]]:
        self.check_options(options)
        self.upstream_ca(options)
        return self._auth_sources(options)

    def upstream_ca(self, options: Mapping[str, str]) -> Path | None:
        """The CA the metering proxy trusts toward the provider besides the system's (option ``ca_cert``)."""
        if not options.get("ca_cert"):
            return None
        ca = Path(options["ca_cert"]).expanduser().resolve()
        if not ca.is_file():
            raise M4AgentError(f"agent {self.name}: ca_cert {ca} is not a file")
        return ca

    def version_for(self, options: Mapping[str, str]) -> str:
        self.check_options(options)
        return self.version

    def command(self, ctx: AgentContext) -> list[str]:
        self.check_options(ctx.options)
        reasoning = self.resolve_reasoning(ctx.options.get("reasoning", "auto"))
        lines = ["set -e", "umask 077"]
        for index, rel in enumerate(self.auth_files):
            if ctx.options.get("auth") == "subscription":
                target = f"$HOME/{rel}"
                lines.append(f'if [ -f {AUTH_DIR}/{index} ]; then mkdir -p "$(dirname {target})"; '
                             f'cp {AUTH_DIR}/{index} {target}; fi')
        for rel, content in self.home_files(ctx).items():
            lines.append(f'mkdir -p "$(dirname "$HOME/{rel}")"; printf %s {shlex.quote(content)} > "$HOME/{rel}"')
        env = dict(self.environment(ctx))
        lines.append(f"if [ -r {layout.METERING_CA} ]; then cat {SYSTEM_BUNDLE} {layout.METERING_CA} > {BUNDLE}; "
                     f"else cp {SYSTEM_BUNDLE} {BUNDLE}; fi")
        env.update({name: BUNDLE for name in self.ca_env})
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()))
        if exports:
            lines.append(f"export {exports}")
        lines += self.shell_prelude()
        lines.append('exec "$@" < /dev/null')
        return ["bash", "-c", "\n".join(lines), f"m4agent-{self.name}", *self.argv(ctx, reasoning)]

    # ---- traces

    def error_texts(self, trace_text: str) -> list[str]:
        """The parts of the trace that are the CLI's own error reports (never tool output, which may
        contain anything); by default the lines that are not JSON events."""
        return [line for line in trace_text.splitlines() if line.strip() and not line.lstrip().startswith("{")]

    def failure(self, trace_text: str) -> tuple[str, str] | None:
        """A provider failure the trace shows (outcome, reason), for an attempt that did not succeed."""
        return provider_failure("\n".join(self.error_texts(trace_text)))

    def probe_request(self, options: Mapping[str, str], model: str) -> dict[str, object]:
        """The smallest request the provider answers for ``model`` (the preflight, ``probe``): URL, headers
        (``$NAME`` read from the secrets inside the container) and JSON body."""
        return provider_probe(self.provider, self.default_model if model == "default" else model)

    def pricing_provider(self, options: Mapping[str, str]) -> str:
        """The provider whose prices apply (the ledger's ``prices.toml`` section)."""
        return self.provider

    def model_used(self, trace_text: str, requested: str) -> str:
        """The model the CLI reports it used (the requested one when the trace does not say)."""
        return requested

    def reported_cost(self, trace_text: str) -> float | None:
        """The cost in dollars the CLI itself reports, when it does."""
        return None


def provider_probe(provider: str, model: str) -> dict[str, object]:
    """One provider's one-token request (the preflight's), by its API's own shape."""
    ping = "Reply with one word."
    if provider == "anthropic":
        return {"url": "https://api.anthropic.com/v1/messages",
                "headers": {"x-api-key": "$ANTHROPIC_API_KEY", "anthropic-version": "2023-06-01",
                            "content-type": "application/json"},
                "body": {"model": model, "max_tokens": 1, "messages": [{"role": "user", "content": ping}]}}
    if provider == "openai":
        return {"url": "https://api.openai.com/v1/responses",
                "headers": {"Authorization": "Bearer $OPENAI_API_KEY", "content-type": "application/json"},
                "body": {"model": model, "input": ping, "max_output_tokens": 16}}
    if provider == "google":
        return {"url": f"https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent",
                "headers": {"x-goog-api-key": "$GEMINI_API_KEY", "content-type": "application/json"},
                "body": {"contents": [{"role": "user", "parts": [{"text": ping}]}],
                         "generationConfig": {"maxOutputTokens": 1}}}
    raise M4AgentError(f"no preflight request for provider {provider!r}")


def json_events(trace_text: str) -> Iterator[dict[str, object]]:
    """The JSON objects of a JSON-lines trace, skipping every line that is not one (stderr, banners)."""
    for line in trace_text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            yield event
