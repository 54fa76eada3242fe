"""``m4agent view``: the HTML of a run, two runs side by side and a campaign, opened in headless Chromium.

The campaign folder is written file by file in the harness's formats (run.json, result.json,
attempts with a Claude Code stream-json trace, campaign.json naming a data directory with built
references), with an output made from the reference's export that differs from it in known
cells; view grades it with every cell's verdict (a real dbt call), the pages are rendered by a
real browser (Chromium's --dump-dom runs the page's script) and read back.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from dataclasses import asdict
from pathlib import Path

import pytest

from m4agent import campaign_folder
from m4agent.campaign_folder import RunSpec
from m4agent.errors import M4AgentError
from m4agent.harness import records
from m4agent.reference_export import export
from m4agent.registry import TASKS_DIR, all_tasks
from m4agent.reports.view import write_view
from m4agent.run_folder import write_json_atomic

TASK = "mimic-sofa-24h"
SCORED = 7  # sofa and its six organ scores


def _trace(sql: str) -> str:
    events = [
        {"type": "system", "subtype": "init", "model": "claude-sonnet-4-5"},
        {"type": "assistant", "message": {"id": "msg_1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": sql}}],
            "usage": {"input_tokens": 900, "cache_creation_input_tokens": 500, "output_tokens": 40}}},
        {"type": "user", "timestamp": "2026-12-01T10:00:01Z", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "6 rows written"}]}},
        {"type": "assistant", "message": {"id": "msg_2", "role": "assistant",
                                          "content": [{"type": "text", "text": "Done."}],
                                          "usage": {"input_tokens": 30, "cache_read_input_tokens": 1400,
                                                    "output_tokens": 8}}},
        {"type": "result", "subtype": "success", "is_error": False, "num_turns": 2, "total_cost_usd": 0.0061,
         "usage": {"input_tokens": 930, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 1400,
                   "output_tokens": 48}},
    ]
    return "\n".join(json.dumps(e) for e in events) + "\n"


def _run(campaign: Path, condition: str, header: str, rows: list[str]) -> Path:
    task = all_tasks(TASKS_DIR)[TASK]
    spec = RunSpec(task=TASK, task_digest=task.digest, condition=condition, schema="native", agent="claude",
                   agent_version="1", model="claude-sonnet-4-5", trial=1)
    folder = campaign_folder.run_folder(campaign, spec)
    records.write_run(folder, spec)
    (folder / "instruction.md").write_text("Compute SOFA over the first ICU day into ./output.csv")
    attempt = folder / "attempts" / "0001"
    attempt.mkdir(parents=True)
    (attempt / "output.csv").write_text("\n".join([header, *rows]) + "\n")
    (attempt / "trace.log").write_text(_trace("SELECT stay_id, 0 AS sofa FROM mimiciv_icu.icustays"))
    (attempt / "egress.jsonl").write_text(json.dumps({"event": "decision", "ts": "t", "host": "api.anthropic.com",
                                                      "port": 443, "allowed": True, "reason": "routed"}) + "\n")
    record = records.AttemptRecord(number=1, outcome=records.Outcome.SCORED)
    records.finish_attempt(attempt, record)
    write_json_atomic(folder / "result.json", {"outcome": "scored", "reward": 0.9, "strict_pass": False,
                                                       "attempt": 1})
    return folder


def _off_by_one(row: str, columns: list[str], wrong: tuple[str, ...]) -> str:
    """The CSV row with the named integer cells one higher."""
    cells = row.split(",")
    for name in wrong:
        cells[columns.index(name)] = str(int(cells[columns.index(name)]) + 1)
    return ",".join(cells)


@pytest.fixture
def campaign(tmp_path: Path, harness_data_dir: Path) -> Path:
    folder = tmp_path / "campaign"
    folder.mkdir()
    truth = export(TASK, harness_data_dir, tmp_path / "truth.csv").read_text().splitlines()
    header, rows = truth[0], truth[1:]
    assert len(rows) >= 3, "the reference needs rows to perturb"
    write_json_atomic(folder / "campaign.json", {"id": uuid.uuid4().hex, "tasks_dir": str(TASKS_DIR),
                                                         "data_dir": str(harness_data_dir)})
    columns = header.split(",")
    # a row with both cells charted gets them one higher; the last row is left out
    chosen = next(i for i, row in enumerate(rows[:-1])
                  if all(row.split(",")[columns.index(name)].isdigit() for name in ("sofa", "respiration")))
    wrong = [_off_by_one(row, columns, ("sofa", "respiration")) if i == chosen else row
             for i, row in enumerate(rows[:-1])]
    runs = [_run(folder, "no-skill", header, wrong), _run(folder, "with-skill", header, rows)]
    plan = {records.read_spec(r).key: asdict(records.read_spec(r)) for r in runs}
    write_json_atomic(folder / "plan.json", {"runs": plan, "skipped": []})
    return folder


def _rendered(page: Path) -> str:
    """The DOM after Chromium has loaded the page and run its script."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.fail("headless Chromium is needed: apt-get install -y chromium")
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _runs(campaign: Path) -> dict[str, Path]:
    return {records.read_spec(p.parent).condition: p.parent for p in campaign.glob("runs/*/*/run.json")}


def test_a_run_page_renders_in_a_browser_and_marks_the_mismatching_cells(campaign: Path) -> None:
    dom = _rendered(write_view(_runs(campaign)["no-skill"]))
    assert 'data-rendered="yes"' in dom
    assert dom.count("class=\"mismatch\"") == 2  # sofa and respiration of the first stay
    assert dom.count("class=\"missing\"") == SCORED  # the stay the output left out: every scored column
    assert "<span data-count-of=\"mismatch\">2</span>" in dom  # the page's script counted the marks


def test_a_run_page_shows_the_sql_the_tokens_and_the_cost(campaign: Path) -> None:
    dom = _rendered(write_view(_runs(campaign)["no-skill"]))
    assert "SELECT stay_id, 0 AS sofa FROM mimiciv_icu.icustays" in dom
    assert "6 rows written" in dom
    assert "$0.0061 (reported" in dom
    assert "api.anthropic.com" in dom


def test_a_campaign_view_lists_every_run_and_pairs_the_conditions_side_by_side(campaign: Path) -> None:
    index = write_view(campaign)
    dom = _rendered(index)
    assert dom.count("<a href=") >= 3  # two runs and one comparison
    pair = _rendered(index.parent / f"compare-{TASK}.html")
    assert pair.count("<section>") == 2
    assert pair.count("class=\"mismatch\"") == 2  # only the no-skill side has mismatches


def test_view_of_a_folder_that_is_no_run_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(M4AgentError, match="neither a run folder"):
        write_view(tmp_path)
