"""The preflight: one minimal request per agent and model, through a real container and the metering proxy,
catches a rejected key, an unknown model and an unreachable provider before any run starts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.dry_run import dry_run

from m4agent import campaign_folder
from m4agent.errors import M4AgentError
from m4agent.harness import campaign, records
from m4agent.model_server import ScriptedModelServer, make_certificates, parse_script

pytestmark = [pytest.mark.docker, pytest.mark.slow]

AGENTS = {  # hosts routed to the scripted server, secrets, options, a model
    "claude": (["api.anthropic.com"], {"ANTHROPIC_API_KEY": "sk-ant-dryrun-0000"}, {}, "claude-sonnet-4-5"),
    "codex": (["api.openai.com"], {"OPENAI_API_KEY": "sk-dryrun-0000"}, {}, "gpt-5"),
    "gemini": (["generativelanguage.googleapis.com"], {"GEMINI_API_KEY": "dryrun-0000"}, {}, "gemini-2.5-pro"),
    "pi": (["ollama.local"], {}, {"provider": "ollama", "base_url": "https://ollama.local/v1"}, "qwen3:8b"),
}


@pytest.mark.parametrize("agent", sorted(AGENTS))
@pytest.mark.parametrize(("kind", "problem"), [("invalid_key", "rejected key"), ("unknown_model", "unknown model")])
def test_the_preflight_names_the_problem_and_starts_no_run(agent: str, kind: str, problem: str, tmp_path: Path,
                                                            harness_data_dir: Path) -> None:
    hosts, secrets, options, model = AGENTS[agent]
    with pytest.raises(M4AgentError, match=f"preflight failed.*{problem}"):
        dry_run(tmp_path, harness_data_dir, agent=agent, hosts=hosts, script={"turns": [{"fail": kind}]},
                secrets=secrets, options=options, model=model, preflight=True)
    (spec,) = campaign_folder.planned_runs(tmp_path / "campaign")
    assert records.attempt_folders(campaign_folder.run_folder(tmp_path / "campaign", spec)) == []
    (found,) = json.loads((tmp_path / "campaign" / campaign.PREFLIGHT_FILE).read_text())["probes"]
    assert found["problem"] == problem and found["ok"] is False


def test_a_campaign_whose_preflight_passes_runs(tmp_path: Path, harness_data_dir: Path) -> None:
    from support.dry_run import task_script

    hosts, secrets, options, model = AGENTS["claude"]
    run = dry_run(tmp_path, harness_data_dir, agent="claude", hosts=hosts, script=task_script(model),
                  secrets=secrets, options=options, model=model, preflight=True)
    assert run.statuses[0]["outcomes"] == {"scored": 1}
    (found,) = json.loads((tmp_path / "campaign" / campaign.PREFLIGHT_FILE).read_text())["probes"]
    assert found["ok"] is True and found["model"] == model


def _doctor(tmp_path: Path, harness_data_dir: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    secrets = tmp_path / "secrets.env"
    secrets.write_text("ANTHROPIC_API_KEY=sk-ant-dryrun-0000\n")
    done = subprocess.run([sys.executable, "-m", "m4agent.cli", "doctor", "--data-dir", str(harness_data_dir),
                           "--agent", "claude", "--model", "claude-sonnet-4-5", "--secrets-file", str(secrets),
                           "--json", *args], capture_output=True, text=True, timeout=180)
    return done.returncode, json.loads(done.stdout)


def test_doctor_with_an_agent_reaches_the_provider_through_a_container(tmp_path: Path,
                                                                       harness_data_dir: Path) -> None:
    certs = make_certificates(tmp_path / "certs", ["api.anthropic.com"])
    script = parse_script({"turns": [{"text": "ok"}]})
    with ScriptedModelServer(script, certificates=certs) as server:
        code, found = _doctor(tmp_path, harness_data_dir, "--route", f"api.anthropic.com=127.0.0.1:{server.port}",
                              "--agent-option", f"ca_cert={certs.ca}")
        asked = [r for r in server.requests if r["path"] == "/v1/messages"]
    check = next(c for c in found if c["name"].startswith("provider"))
    assert check["ok"] is True, check
    assert len(asked) == 1  # one request, not a run of the CLI


def test_doctor_says_a_provider_that_cannot_be_reached_is_unreachable(tmp_path: Path,
                                                                     harness_data_dir: Path) -> None:
    import socket

    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    code, found = _doctor(tmp_path, harness_data_dir, "--route", f"api.anthropic.com=127.0.0.1:{port}")
    check = next(c for c in found if c["name"].startswith("provider"))
    assert code == 1 and check["ok"] is False and check["detail"].startswith("provider unreachable")
