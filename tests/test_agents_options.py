"""The four CLI adapters' command lines and options, without containers: M4Bench's flags, the reasoning
policy, auth seeds and the pinned versions."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4agent.errors import M4AgentError
from m4agent.harness.agents import AgentContext, get_agent
from m4agent.paths import PROJECT_ROOT

CLIS = {"claude": "CLAUDE_CODE_VERSION", "codex": "CODEX_VERSION", "gemini": "GEMINI_CLI_VERSION",
        "pi": "PI_CODING_AGENT_VERSION"}
PI = {"provider": "ollama", "base_url": "https://ollama.local/v1"}


def _ctx(options: dict[str, str], model: str = "default") -> AgentContext:
    return AgentContext(instruction_file="/workspace/instruction.md", instruction="Do the task.", model=model,
                        options=options)


def _argv(name: str, options: dict[str, str], model: str = "default") -> list[str]:
    command = get_agent(name).command(_ctx(options, model))
    assert command[:2] == ["bash", "-c"]
    return command[4:]


def test_each_adapter_pins_the_version_the_image_installs() -> None:
    pinned = dict(line.split("=", 1) for line in (PROJECT_ROOT / "docker" / "versions.env").read_text().splitlines()
                  if "=" in line and not line.startswith("#"))
    for name, key in CLIS.items():
        agent = get_agent(name)
        assert agent.cli_version == pinned[key], name
        assert agent.version.endswith(pinned[key]), name


def test_claude_runs_as_m4bench_runs_it_with_auto_reasoning_at_medium() -> None:
    argv = _argv("claude", {}, "claude-sonnet-4-5")
    assert argv[:2] == ["claude", "-p"] and argv[-1] == "Do the task."
    assert argv[argv.index("--model") + 1] == "claude-sonnet-4-5"
    assert argv[argv.index("--effort") + 1] == "medium"
    assert "Bash(curl *)" in argv[argv.index("--disallowedTools") + 1]
    assert argv[argv.index("--output-format") + 1] == "stream-json"


def test_codex_auto_reasoning_is_medium_and_default_passes_no_flag() -> None:
    assert 'model_reasoning_effort="medium"' in _argv("codex", {})
    assert not any("model_reasoning_effort" in a for a in _argv("codex", {"reasoning": "default"}))
    assert 'sandbox_mode="danger-full-access"' in _argv("codex", {})


def test_gemini_and_pi_leave_reasoning_to_the_provider_under_auto() -> None:
    assert "--thinking" not in _argv("pi", PI)
    assert _argv("pi", {**PI, "reasoning": "high"})[-4:-2] == ["--mode", "json"]
    assert "--thinking" in _argv("pi", {**PI, "reasoning": "high"})
    assert _argv("gemini", {})[:4] == ["gemini", "--approval-mode", "yolo", "--skip-trust"]


@pytest.mark.parametrize(("name", "level"), [("claude", "minimal"), ("codex", "max"), ("gemini", "high")])
def test_a_reasoning_level_the_cli_does_not_take_is_refused(name: str, level: str) -> None:
    with pytest.raises(M4AgentError, match="reasoning"):
        get_agent(name).version_for({"reasoning": level})


def test_an_unknown_option_is_refused_naming_the_ones_it_takes() -> None:
    with pytest.raises(M4AgentError, match="unknown option.*takes auth, auth_dir, ca_cert, max_budget_usd, reasoning"):
        get_agent("claude").version_for({"scrpit": "x"})


def test_pi_with_a_local_provider_needs_an_https_base_url() -> None:
    with pytest.raises(M4AgentError, match="base_url=https://"):
        get_agent("pi").version_for({"provider": "ollama", "base_url": "http://localhost:11434/v1"})


def test_pi_writes_its_local_endpoint_into_its_home_models_file() -> None:
    script = get_agent("pi").command(_ctx(PI, "qwen3:8b"))[2]
    assert ".pi/agent/models.json" in script and "https://ollama.local/v1" in script and "qwen3:8b" in script


def test_a_subscription_login_is_mounted_and_copied_into_home_not_the_workspace(tmp_path: Path) -> None:
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "auth.json").write_text("{}")
    options = {"auth": "subscription", "auth_dir": str(tmp_path)}
    codex = get_agent("codex")
    ((host, target),) = codex.mounts(options)
    assert host == tmp_path / ".codex" / "auth.json" and target.startswith("/opt/m4agent-agent/auth/")
    assert f"cp {target} $HOME/.codex/auth.json" in codex.command(_ctx(options))[2]


def test_a_subscription_without_login_files_says_to_log_in(tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="log in with the CLI first"):
        get_agent("claude").mounts({"auth": "subscription", "auth_dir": str(tmp_path)})


def test_the_cli_trusts_the_metering_ca_beside_the_system_bundle() -> None:
    script = get_agent("codex").command(_ctx({}))[2]
    assert "/etc/ssl/certs/ca-certificates.crt /run/m4agent-ca/ca.pem" in script and "SSL_CERT_FILE=" in script


def test_a_ca_cert_option_is_the_proxys_upstream_trust_not_a_mount(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    codex = get_agent("codex")
    assert codex.mounts({"ca_cert": str(ca)}) == [] and codex.upstream_ca({"ca_cert": str(ca)}) == ca


def test_a_ca_cert_that_is_no_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="is not a file"):
        get_agent("claude").mounts({"ca_cert": str(tmp_path / "missing.pem")})


@pytest.mark.parametrize(("text", "outcome"), [
    ('{"type":"result","is_error":true,"api_error_status":429,"result":"API Error: Request rejected (429)"}', "quota"),
    ('{"type":"result","is_error":true,"api_error_status":400,"result":"Credit balance is too low"}', "quota"),
    ('{"type":"result","is_error":true,"api_error_status":401,"result":"Invalid API key"}', "infra_error"),
    ('{"type":"result","is_error":true,"api_error_status":500,"result":"API Error: 500 Internal server error"}',
     "infra_error"),
])
def test_claude_provider_errors_map_to_retryable_outcomes(text: str, outcome: str) -> None:
    found = get_agent("claude").failure(text + "\n")
    assert found is not None and found[0] == outcome


def test_a_tool_output_that_mentions_429_is_not_a_provider_failure() -> None:
    trace = '{"type":"user","message":{"content":[{"type":"tool_result","content":"stay 429 rate limit"}]}}\n'
    assert get_agent("claude").failure(trace) is None


def test_claude_takes_a_per_run_budget_cap_and_refuses_a_nonsense_one() -> None:
    argv = _argv("claude", {"max_budget_usd": "2.5"})
    assert argv[argv.index("--max-budget-usd") + 1] == "2.5"
    with pytest.raises(M4AgentError, match="max_budget_usd must be a positive number"):
        get_agent("claude").version_for({"max_budget_usd": "lots"})


# Error events as the CLIs printed them against the scripted server's failures (codex 0.124, gemini 0.39.1, pi 0.70.2)
CLI_ERRORS = [
    ("codex", '{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}',
     "quota"),
    ("codex", '{"type":"turn.failed","error":{"message":"We\'re currently experiencing high demand, which may cause '
              'temporary errors."}}', "infra_error"),
    ("codex", '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Incorrect API key '
              'provided"}}', "infra_error"),
    ("gemini", '{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: You have '
               'exhausted your daily quota on this model.]"}}', "quota"),
    ("gemini", '{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: API key not '
               'valid. Please pass a valid API key.]"}}', "infra_error"),
    ("pi", '{"type":"message_end","message":{"role":"assistant","stopReason":"error","errorMessage":"429 You '
           'exceeded your current quota, please check your plan and billing details."}}', "quota"),
    ("pi", '{"type":"message_end","message":{"role":"assistant","stopReason":"error","errorMessage":"401 Incorrect '
           'API key provided: sk-****."}}', "infra_error"),
]


@pytest.mark.parametrize(("name", "line", "outcome"), CLI_ERRORS)
def test_each_cli_provider_error_maps_to_a_retryable_outcome(name: str, line: str, outcome: str) -> None:
    found = get_agent(name).failure(line + "\n")
    assert found is not None and found[0] == outcome


def test_pi_egress_reaches_its_cloud_provider_hosts_and_no_host_for_a_local_endpoint() -> None:
    pi = get_agent("pi")
    assert pi.providers_for({"provider": "anthropic"}) == ("anthropic",)
    assert pi.providers_for(PI) == ()
    assert get_agent("claude").providers_for({}) == ("anthropic",)
