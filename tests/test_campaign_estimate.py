"""Cost and time before the start (issue 41, Deliver 3): `campaign plan` counts the runs per block and
agent/model and estimates tokens, dollars and wall time from measured attempts (never from a record an
agent could have written, never a count the provider did not report as 0), or says "unknown"; and
`[budget] per_run_usd` is checked for every agent's runs, recorded in the lock, the attempt, the result
and the report.

The measurements are those of one real campaign: codex in the agent image against the scripted model
server (tests/support/dry_run.py), with a per-run budget its one run exceeds.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.dry_run import DryRun, dry_run, task_script
from support.harness import cli, write_matrix

from m4agent import campaign_folder, run_folder
from m4agent.harness import campaign, ledger, records

CODEX_KEY = {"OPENAI_API_KEY": "sk-dryrun-0000"}
PER_RUN_USD = 0.0055  # between the dry run's first request (~$0.0051 at gpt-5's prices) and its whole ~$0.006: the
# proxy lets the second request through (the cap is not yet spent), and the attempt ends over the cap


@pytest.fixture(scope="module")
def codex(engine: Any, harness_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> DryRun:
    run = dry_run(tmp_path_factory.mktemp("codex"), harness_data_dir, agent="codex", hosts=["api.openai.com"],
                  script=task_script("gpt-5"), model="gpt-5", secrets=CODEX_KEY,
                  matrix_extra=f"[budget]\nper_run_usd = {PER_RUN_USD}\n")
    (attempt,) = run.attempts()
    assert attempt.outcome.value == "scored", (attempt.outcome, attempt.reason)
    return run


def _codex_matrix(folder: Path, extra: str = "") -> Path:
    """Four codex/gpt-5 runs (two tasks, two trials)."""
    return write_matrix(folder / "codex.toml", f"""
[campaign]
tasks = ["eicu-gcs", "mimic-sofa-24h"]
trials = 2
{extra}
[[agents]]
name = "codex"
models = ["gpt-5"]
""")


def _plan(matrix: Path | str, folder: Path, *args: str) -> Any:
    """`campaign plan` as a user sees it (a wide terminal: no table cell wrapped)."""
    return cli("campaign", "plan", str(matrix), "--dir", str(folder), *args, env={**os.environ, "COLUMNS": "200"})


def _plan_json(matrix: Path | str, folder: Path, *args: str) -> dict[str, Any]:
    done = cli("campaign", "plan", str(matrix), "--dir", str(folder), "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _row(plan: dict[str, Any], agent: str, model: str) -> dict[str, Any]:
    (row,) = [r for r in plan["estimate"]["rows"] if (r["agent"], r["model"]) == (agent, model)]
    return row


def _measured_usage(run: DryRun) -> dict[str, Any]:
    (attempt,) = run.attempts()
    return attempt.extra["ledger"]["usage"]


# --- runs per block --------------------------------------------------------------------------------

def test_plan_counts_runs_per_block_and_agent_model(tmp_path: Path) -> None:
    plan = _plan_json("rerun-v1.1", tmp_path / "c", "--agent", "claude")
    blocks = {b["block"]: (b["runs"], b["agent_models"]) for b in plan["blocks"]}
    assert list(blocks.values()) == [(560, {"claude/opus": 280, "claude/sonnet": 280}),
                                     (100, {"claude/opus": 50, "claude/sonnet": 50}),
                                     (100, {"claude/opus": 50, "claude/sonnet": 50}),
                                     (24, {"claude/opus": 12, "claude/sonnet": 12})]
    assert "T5 raw-SQL cross-provider control" in list(blocks)[3]
    assert plan["planned"] == len(plan["runs"]) == plan["estimate"]["runs"] == 784


# --- nothing measured: unknown, never invented -----------------------------------------------------

def test_without_measurements_tokens_and_dollars_are_unknown_not_invented(tmp_path: Path) -> None:
    plan = _plan_json(_codex_matrix(tmp_path), tmp_path / "c")
    row = _row(plan, "codex", "gpt-5")
    assert row["tokens_per_run"] is None and row["usd_per_run"] is None and plan["estimate"]["usd_total"] is None
    assert "M4Bench publishes no per-run token counts" in row["tokens_source"]


def test_without_measurements_the_time_is_the_limit_as_an_upper_bound(tmp_path: Path) -> None:
    plan = _plan_json(_codex_matrix(tmp_path, "[limits]\nagent_seconds = 600\n"), tmp_path / "c")
    row = _row(plan, "codex", "gpt-5")
    assert row["agent_seconds_per_run"] == 600 and "upper bound" in row["agent_seconds_source"]
    assert plan["estimate"]["wall_seconds"] == 4 * 600


def test_wall_time_divides_agent_time_by_workers_and_a_providers_cap(tmp_path: Path) -> None:
    workers = _plan_json(_codex_matrix(tmp_path, "workers = 4\n[limits]\nagent_seconds = 600\n"), tmp_path / "a")
    assert workers["estimate"]["wall_seconds"] == 4 * 600 / 4
    capped = _plan_json(_codex_matrix(tmp_path, "workers = 4\n[limits]\nagent_seconds = 600\n"
                                      "[provider_caps]\nopenai = 2\n"), tmp_path / "b")
    assert capped["estimate"]["wall_seconds"] == 4 * 600 / 2
    again = _plan_json(_codex_matrix(tmp_path, "workers = 4\n[limits]\nagent_seconds = 600\n"), tmp_path / "a",
                       "--workers", "1")
    assert again["estimate"]["wall_seconds"] == 4 * 600


def test_an_agent_calling_no_model_costs_no_tokens(tmp_path: Path) -> None:
    matrix = write_matrix(tmp_path / "m.toml", '[campaign]\ntasks = ["eicu-gcs"]\n[[agents]]\nname = "oracle"\n')
    row = _row(_plan_json(matrix, tmp_path / "c"), "oracle", "default")
    assert row["usd_per_run"] == 0.0 and row["tokens_source"] == "no model"


def test_a_local_model_costs_nothing_though_its_tokens_are_unknown(tmp_path: Path) -> None:
    matrix = write_matrix(tmp_path / "m.toml", '[campaign]\ntasks = ["eicu-gcs"]\n[[agents]]\nname = "pi"\n'
                          'models = ["qwen3:4b"]\noptions = { provider = "ollama", base_url = "https://ollama.invalid/v1" }\n')
    row = _row(_plan_json(matrix, tmp_path / "c"), "pi", "qwen3:4b")
    assert row["tokens_per_run"] is None and row["usd_per_run"] == 0.0
    assert row["priced_as"] == "ollama/qwen3:4b at prices.toml 2026-12-01.1"


# --- measured: an earlier campaign's attempts ------------------------------------------------------

def test_tokens_dollars_and_time_come_from_an_earlier_campaigns_attempts(codex: DryRun, tmp_path: Path) -> None:
    plan = _plan_json(_codex_matrix(tmp_path), tmp_path / "c", "--usage-from", str(codex.campaign_dir))
    row = _row(plan, "codex", "gpt-5")
    (attempt,) = codex.attempts()
    usage = _measured_usage(codex)
    assert row["tokens_per_run"] == {name: usage[name] for name in ledger.FIELDS}
    assert row["tokens_source"] == "measured from 1 attempts"
    priced = ledger.estimate(ledger.Usage.from_dict(usage), "openai", "gpt-5").usd
    assert row["usd_per_run"] == pytest.approx(priced) and priced > 0
    assert plan["estimate"]["usd_total"] == pytest.approx(4 * priced)
    assert row["agent_seconds_per_run"] == pytest.approx(attempt.phases["agent"])


def test_the_plan_prints_the_estimate_and_its_sources(codex: DryRun, tmp_path: Path) -> None:
    done = _plan(_codex_matrix(tmp_path), tmp_path / "c", "--usage-from", str(codex.campaign_dir))
    assert done.returncode == 0, done.stderr
    assert "codex/gpt-5 tokens: measured from 1 attempts" in done.stderr
    assert "codex/gpt-5 price: openai/gpt-5 at prices.toml 2026-12-01.1; time: measured from 1 attempts" in done.stderr
    assert "total: dollars $0.02" in done.stderr


def test_a_count_the_provider_does_not_report_is_left_out_not_averaged_as_zero(codex: DryRun,
                                                                                tmp_path: Path) -> None:
    silent = tmp_path / "silent"
    shutil.copytree(codex.campaign_dir, silent, symlinks=True)
    (attempt_file,) = (path / records.ATTEMPT_FILE for path in
                       records.attempt_folders(campaign_folder.run_folder(silent, campaign_folder.planned_runs(silent)[0])))
    record = records.read_json(attempt_file)
    record["extra"]["ledger"]["usage"]["cache_read"] = None  # a protocol that does not report cache reads
    records.write_json_atomic(attempt_file, record)
    usage = _measured_usage(codex)
    both = _row(_plan_json(_codex_matrix(tmp_path), tmp_path / "c", "--usage-from", str(codex.campaign_dir),
                           "--usage-from", str(silent)), "codex", "gpt-5")
    assert both["tokens_per_run"]["cache_read"] == usage["cache_read"]  # one report, not its half
    assert both["tokens_per_run"]["output"] == usage["output"]
    alone = _row(_plan_json(_codex_matrix(tmp_path), tmp_path / "d", "--usage-from", str(silent)), "codex", "gpt-5")
    assert alone["tokens_per_run"]["cache_read"] is None
    human = _plan(_codex_matrix(tmp_path), tmp_path / "d", "--usage-from", str(silent))
    assert f"{usage['input']:,} / n/a / " in human.stderr, human.stderr


def test_a_campaign_planted_in_an_agents_workspace_is_never_measured(codex: DryRun, tmp_path: Path) -> None:
    (attempt,) = records.attempt_folders(codex.run_folder())
    workspace = attempt / run_folder.WORKSPACE_DIR
    planted = workspace / "planted"
    try:
        campaign.plan(_codex_matrix(tmp_path), planted)
        for spec in campaign_folder.planned_runs(planted):
            folder = records.new_attempt(campaign_folder.run_folder(planted, spec))
            forged = records.AttemptRecord(number=1, outcome=records.Outcome.SCORED, phases={"agent": 1.0},
                                           extra={"ledger": {"provider": "openai", "model": "gpt-5",
                                                             "usage": {"input": 10**9, "output": 10**9}}})
            records.finish_attempt(folder, forged)
        row = _row(_plan_json(_codex_matrix(tmp_path), tmp_path / "c", "--usage-from", str(codex.campaign_dir)),
                   "codex", "gpt-5")
        assert row["tokens_source"] == "measured from 1 attempts"
        assert row["tokens_per_run"]["input"] == _measured_usage(codex)["input"]
        refused = cli("campaign", "plan", str(_codex_matrix(tmp_path)), "--dir", str(tmp_path / "d"),
                      "--usage-from", str(planted))
        assert refused.returncode == 1 and "holds no campaign's runs" in refused.stderr, refused.stderr
        assert not (tmp_path / "d").exists()
    finally:
        shutil.rmtree(planted, ignore_errors=True)


def test_usage_from_a_folder_holding_no_campaign_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = cli("campaign", "plan", str(_codex_matrix(tmp_path)), "--dir", str(tmp_path / "c"),
               "--usage-from", str(tmp_path / "empty"))
    assert done.returncode == 1 and "holds no campaign's runs" in done.stderr, done.stderr
    assert not (tmp_path / "c").exists()


# --- [budget] for every agent ------------------------------------------------------------------------

@pytest.mark.parametrize("setting", ["per_run_usd = -1", "per_run_usd = \"2\"", "per_run_usd = true",
                                     "per_attempt_usd = 2"])
def test_a_budget_setting_that_is_not_a_positive_dollar_cap_is_refused_at_plan_time(setting: str,
                                                                                     tmp_path: Path) -> None:
    done = cli("campaign", "plan", str(_codex_matrix(tmp_path, f"[budget]\n{setting}\n")), "--dir", str(tmp_path / "c"))
    assert done.returncode == 1 and "[budget]" in done.stderr, done.stderr
    assert not (tmp_path / "c").exists()


def test_the_per_run_budget_applies_to_an_agent_other_than_claude_and_is_shown_by_the_plan(tmp_path: Path) -> None:
    plan = _plan_json(_codex_matrix(tmp_path, "[budget]\nper_run_usd = 2.5\n"), tmp_path / "c")
    assert plan["estimate"]["budget"] == {"per_run_usd": 2.5}
    done = _plan(_codex_matrix(tmp_path, "[budget]\nper_run_usd = 2.5\n"), tmp_path / "c")
    assert "budget: per_run_usd = 2.5" in done.stderr


def test_the_per_run_budget_is_recorded_in_the_lock(codex: DryRun) -> None:
    assert records.read_json(codex.campaign_dir / campaign.LOCK_FILE)["budget"] == {"per_run_usd": PER_RUN_USD}


def test_an_attempt_over_the_per_run_budget_is_recorded_in_its_attempt_and_result(codex: DryRun) -> None:
    (attempt,) = codex.attempts()
    assert attempt.extra["ledger"]["cost"]["usd"] > PER_RUN_USD
    assert attempt.extra["budget_exceeded"] is True and attempt.extra["budget_per_run_usd"] == PER_RUN_USD
    result = codex.result()
    assert result is not None and result["budget_exceeded"] is True and result["outcome"] == "scored"


def test_the_report_counts_runs_over_the_per_run_budget(codex: DryRun) -> None:
    from m4agent.reports import report, tables

    built = report.build([codex.campaign_dir])
    assert built["validity"]["integrity"]["over_run_budget"] == 1
    (validity,) = [t for t in tables.validity_tables(built) if t.name == "validity"]
    assert ["Runs over the per-run budget ([budget] per_run_usd; graded)", "1"] in validity.rows


def test_a_run_whose_mark_a_kill_lost_is_still_over_budget_in_its_result(codex: DryRun, harness_data_dir: Path,
                                                                         tmp_path: Path) -> None:
    copy = tmp_path / "killed"
    shutil.copytree(codex.campaign_dir, copy, symlinks=True)
    (spec,) = campaign_folder.planned_runs(copy)
    folder = campaign_folder.run_folder(copy, spec)
    (attempt_file,) = (path / records.ATTEMPT_FILE for path in records.attempt_folders(folder))
    record = records.read_json(attempt_file)
    del record["extra"]["budget_exceeded"]  # killed after the attempt ended, before it was marked
    records.write_json_atomic(attempt_file, record)
    (folder / records.RESULT_FILE).unlink()
    matrix, tasks, _ = campaign._matrix(copy)
    campaign.Grader(copy, harness_data_dir, tasks, matrix).grade([spec])
    assert records.read_json(folder / records.RESULT_FILE)["budget_exceeded"] is True
