"""Planning a campaign folder: another campaign's folder is refused unless told to add, every matrix
given is kept, a rejected command leaves no file, and a dry run's routes decide the whole egress.

No container runs here: planning and the egress policy are files and data.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.harness import cli, write_matrix

from m4agent import campaign_folder
from m4agent.errors import M4AgentError
from m4agent.harness import campaign, records
from m4agent.run_folder import read_json

TASKS = '["eicu-gcs", "mimic-sofa-24h"]'


def _matrix(folder: Path, agent: str, extra: str = "") -> Path:
    return write_matrix(folder / f"{agent}.toml", f"""
[campaign]
tasks = {TASKS}
conditions = ["no-skill", "with-skill"]
trials = 3
{extra}
[[agents]]
name = "{agent}"
""")


def test_planning_into_a_folder_holding_another_campaign_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    campaign.plan(_matrix(tmp_path, "oracle"), folder)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with pytest.raises(M4AgentError, match="already holds a campaign of 12 runs.*campaign plan --add"):
        campaign.plan(_matrix(tmp_path, "null"), folder)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


def test_the_command_line_refusal_is_one_line_and_exit_1(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    campaign.plan(_matrix(tmp_path, "oracle"), folder)
    done = cli("campaign", "plan", str(_matrix(tmp_path, "null")), "--dir", str(folder))
    assert done.returncode == 1 and "error:" in done.stderr and "--add" in done.stderr, done.stderr
    assert len(campaign_folder.planned_runs(folder)) == 12


def test_added_matrices_are_all_kept_and_run_together(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    campaign.plan(_matrix(tmp_path, "oracle"), folder)
    campaign.plan(_matrix(tmp_path, "null"), folder, add=True)
    meta = read_json(folder / campaign_folder.CAMPAIGN_FILE)
    assert [m["matrix"]["agents"][0]["name"] for m in meta["matrices"]] == ["oracle", "null"]
    matrix, _, _ = campaign._matrix(folder)
    assert set(matrix.agents) == {"oracle", "null"} and len(matrix.runs) == 24
    assert len(campaign_folder.planned_runs(folder)) == 24


def test_the_same_matrix_planned_again_changes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    source = _matrix(tmp_path, "oracle")
    campaign.plan(source, folder)
    campaign.plan(source, folder)
    assert len(read_json(folder / campaign_folder.CAMPAIGN_FILE)["matrices"]) == 1
    assert len(campaign_folder.planned_runs(folder)) == 12


def test_adding_runs_the_campaign_already_has_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    campaign.plan(_matrix(tmp_path, "oracle"), folder)
    again = write_matrix(tmp_path / "again.toml", '[campaign]\ntasks = ["eicu-gcs"]\n[[agents]]\nname = "oracle"\n')
    with pytest.raises(M4AgentError, match="plans 1 run.* the campaign already has .*eicu-gcs"):
        campaign.plan(again, folder, add=True)
    assert len(read_json(folder / campaign_folder.CAMPAIGN_FILE)["matrices"]) == 1


def test_adding_a_matrix_with_other_settings_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    campaign.plan(_matrix(tmp_path, "oracle"), folder)
    with pytest.raises(M4AgentError, match="sets workers otherwise than the first"):
        campaign.plan(_matrix(tmp_path, "null", "workers = 4"), folder, add=True)


def test_a_run_rejected_by_validation_leaves_no_file(tmp_path: Path) -> None:
    folder = tmp_path / "never"
    done = cli("run", "eicu-gcs", "--agent", "oracle", "--condition", "with-skills", "--dir", str(folder))
    assert done.returncode == 1 and "unknown condition 'with-skills'" in done.stderr, done.stderr
    assert not folder.exists()


def test_a_dry_run_routes_or_refuses_every_allowlisted_host_of_the_agent(tmp_path: Path) -> None:
    matrix = write_matrix(tmp_path / "codex.toml", '[campaign]\ntasks = ["eicu-gcs"]\n[[agents]]\nname = "codex"\n')
    campaign.plan(matrix, tmp_path / "c")
    built, _, _ = campaign._matrix(tmp_path / "c")
    policy, refused = campaign.egress_policy(built, (("api.openai.com", "127.0.0.1", 8443),))
    assert policy.decide("api.openai.com", 443) == (True, "routed to 127.0.0.1:8443")
    for host in ("auth.openai.com", "chatgpt.com", "ab.chatgpt.com", "x.auth.openai.com"):
        assert policy.decide(host, 443)[0] is False, host
    assert refused == ["auth.openai.com", "chatgpt.com", "*.auth.openai.com", "*.chatgpt.com"]
    lines = campaign.routing(tmp_path / "c", (("api.openai.com", "127.0.0.1", 8443),))
    assert lines == ["routed: api.openai.com -> 127.0.0.1:8443", "refused (allowlisted for the agents, not routed): "
                     "auth.openai.com, chatgpt.com, *.auth.openai.com, *.chatgpt.com"]


def test_without_routes_the_agents_hosts_stay_allowlisted(tmp_path: Path) -> None:
    matrix = write_matrix(tmp_path / "codex.toml", '[campaign]\ntasks = ["eicu-gcs"]\n[[agents]]\nname = "codex"\n')
    campaign.plan(matrix, tmp_path / "c")
    policy, refused = campaign.egress_policy(campaign._matrix(tmp_path / "c")[0], ())
    assert policy.decide("auth.openai.com", 443)[0] and refused == []


def test_a_campaign_json_written_before_matrices_were_kept_still_runs(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    campaign.plan(_matrix(tmp_path, "oracle"), folder)
    meta = read_json(folder / campaign_folder.CAMPAIGN_FILE)
    [entry] = meta.pop("matrices")
    (folder / campaign_folder.CAMPAIGN_FILE).write_text(json.dumps({**meta, **entry}))
    assert len(campaign._matrix(folder)[0].runs) == 12


def _claude_campaign(tmp_path: Path, options: str = "") -> Path:
    matrix = write_matrix(tmp_path / "claude.toml", '[campaign]\ntasks = ["eicu-gcs"]\n[[agents]]\nname = "claude"\n'
                          + options)
    campaign.plan(matrix, tmp_path / "c")
    return tmp_path / "c"


def test_a_missing_api_key_stops_the_start_naming_the_variable_before_any_run(tmp_path: Path) -> None:
    folder = _claude_campaign(tmp_path)
    with pytest.raises(M4AgentError, match="agent claude needs ANTHROPIC_API_KEY: .*--secrets-file.*no run was started"):
        campaign.run(folder, tmp_path / "data", secrets={"OPENAI_API_KEY": "sk-other"})
    [spec] = campaign_folder.planned_runs(folder)
    assert records.attempt_folders(campaign_folder.run_folder(folder, spec)) == []
    assert "data_dir" not in read_json(folder / campaign_folder.CAMPAIGN_FILE)  # nothing pinned either


def test_pi_on_a_cloud_provider_needs_that_providers_key(tmp_path: Path) -> None:
    matrix = write_matrix(tmp_path / "pi.toml", '[campaign]\ntasks = ["eicu-gcs"]\n[[agents]]\nname = "pi"\n'
                          'options = { provider = "google" }\n')
    campaign.plan(matrix, tmp_path / "c")
    with pytest.raises(M4AgentError, match="agent pi needs GEMINI_API_KEY"):
        campaign.run(tmp_path / "c", tmp_path / "data")


def test_planning_a_campaign_names_the_keys_its_run_will_need(tmp_path: Path) -> None:
    done = cli("campaign", "plan", "rerun-v1.1", "--agent", "claude", "--dir", str(tmp_path / "c"))
    assert done.returncode == 0, done.stderr
    assert "planned 784 runs" in done.stderr
    assert "--secrets-file FILE" in done.stderr and "ANTHROPIC_API_KEY=..." in done.stderr
