"""`m4agent report` on a small real campaign of built-in agents, and the page in a real headless browser.

The campaign (real containers, real grading): oracle and null on two tasks x no-skill/with-skill, and a
shell agent on mimic-sofa-24h whose script writes part of the reference (more of it, and exact values,
when it finds the condition's skills), so rewards, nMAE and the skill effect fall in between.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.harness import docker_engine, write_matrix
from support.task_tree import task_tree_with_skills

from m4agent import campaign_folder
from m4agent.harness import campaign, records
from m4agent.harness.records import AttemptRecord, Outcome
from m4agent.reference_export import export
from m4agent.reports import report
from m4agent.run_folder import RESULT_FILE

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SHELL_TASK = "mimic-sofa-24h"


def _shell_script(truth: Path, folder: Path) -> Path:
    """with skills: 3/4 of the reference rows exact; without: half the rows, sofa off by 2 (nMAE > 0)."""
    rows = list(csv.DictReader(truth.open()))
    names = list(rows[0])

    def text(subset: list[dict[str, str]], shift: int) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
        writer.writeheader()
        for row in subset:
            changed = dict(row)
            if shift and changed["sofa"] not in ("", None):
                changed["sofa"] = str(int(float(changed["sofa"])) + shift)
            writer.writerow(changed)
        return out.getvalue()

    script = folder / "partial_agent.sh"
    script.write_text(
        "cd /workspace\n"
        "if [ -d skills ]; then\ncat > output.csv <<'EOF'\n" + text(rows[: 3 * len(rows) // 4], 0) + "EOF\n"
        "else\ncat > output.csv <<'EOF'\n" + text(rows[: len(rows) // 2], 2) + "EOF\nfi\n")
    return script


@pytest.fixture(scope="module")
def campaign_dir(tmp_path_factory: pytest.TempPathFactory, harness_data_dir: Path) -> Path:
    docker_engine()
    root = tmp_path_factory.mktemp("report_campaign")
    data_dir = harness_data_dir
    tree = task_tree_with_skills(root / "tasks")
    script = _shell_script(export(SHELL_TASK, data_dir, root / "truth.csv"), root)
    matrix = write_matrix(root / "matrix.toml", f"""
[campaign]
workers = 2

[[agents]]
name = "oracle"

[[agents]]
name = "null"

[[agents]]
name = "shell"
options = {{ script = "{script}" }}

[[blocks]]
tasks = ["{SHELL_TASK}", "eicu-gcs"]
conditions = ["no-skill", "with-skill"]
agents = ["oracle", "null"]

[[blocks]]
tasks = ["{SHELL_TASK}"]
conditions = ["no-skill", "with-skill"]
trials = 2
agents = ["shell"]
""")
    folder = root / "campaign"
    campaign.plan(matrix, folder, tasks_dir=tree)
    campaign.run(folder, data_dir, run_canary=False)
    return folder


@pytest.fixture(scope="module")
def built(campaign_dir: Path) -> dict[str, Any]:
    return report.build([campaign_dir])


def _comparison(built: dict[str, Any], agent: str) -> dict[str, Any]:
    [found] = [c for c in built["comparisons"] if c["agent"] == agent and c["baseline"] == "no-skill"
               and c["treatment"] == "with-skill"]
    return found


def test_campaign_report_is_complete_against_its_plan(built: dict[str, Any]) -> None:
    completeness = built["validity"]["completeness"]
    assert (completeness["plan"], completeness["expected"], completeness["observed"]) == (True, 12, 12)
    assert completeness["missing"] == [] and completeness["unexpected"] == []
    assert built["validity"]["outcomes"]["final"] == {"no_output": 4, "scored": 8}


def test_oracle_and_null_have_no_skill_effect(built: dict[str, Any]) -> None:
    oracle, null = _comparison(built, "oracle"), _comparison(built, "null")
    assert (oracle["baseline_mean"], oracle["treatment_mean"], oracle["delta"]) == (1.0, 1.0, 0.0)
    assert oracle["strict_pass"] == {"no-skill": [2, 2], "with-skill": [2, 2]}
    assert (null["delta"], null["strict_pass"]["with-skill"]) == (0.0, [0, 2])


def test_partial_shell_agent_gets_intermediate_rewards_a_skill_effect_and_nmae(built: dict[str, Any]) -> None:
    shell = _comparison(built, "shell")
    assert 0.0 < shell["baseline_mean"] < shell["treatment_mean"] < 1.0
    assert shell["delta"] > 0 and shell["tasks_improved"] == 1
    assert shell["strict_pass"] == {"no-skill": [0, 2], "with-skill": [0, 2]}
    assert shell["nmae_baseline"] > 0 and shell["nmae_treatment"] == 0.0 and shell["nmae_delta"] < 0
    assert shell["key_f1_delta"] > 0


def test_oracle_output_has_zero_nmae(built: dict[str, Any]) -> None:
    cells = [c for c in built["cells"] if c["agent"] == "oracle" and c["task"] == SHELL_TASK]
    assert [c["mean_nmae"] for c in cells] == [0.0, 0.0]


def test_a_missing_run_and_an_interrupted_attempt_leave_the_skill_effect_unmoved(
        campaign_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "campaign"
    shutil.copytree(campaign_dir, copy, ignore=shutil.ignore_patterns(".harness.lock"))
    specs = [s for s in campaign_folder.planned_runs(copy) if s.agent == "oracle" and s.task == SHELL_TASK]
    missing, retried = sorted(specs, key=lambda s: s.condition)  # no-skill, with-skill
    shutil.rmtree(campaign_folder.run_folder(copy, missing) / "attempts")
    (campaign_folder.run_folder(copy, missing) / RESULT_FILE).unlink()
    folder = campaign_folder.run_folder(copy, retried)
    (folder / "attempts" / "0001").rename(folder / "attempts" / "0002")
    (folder / "attempts" / "0001").mkdir()
    records.finish_attempt(folder / "attempts" / "0001",
                           AttemptRecord(number=1, outcome=Outcome.INFRA_ERROR, reason=records.INTERRUPTED))
    found = report.build([copy])
    completeness = found["validity"]["completeness"]
    assert (completeness["expected"], completeness["observed"], len(completeness["missing"])) == (12, 11, 1)
    assert found["validity"]["outcomes"]["attempts"]["infra_error"] == 1
    oracle = next(c for c in found["comparisons"] if c["agent"] == "oracle" and c["treatment"] == "with-skill")
    assert oracle["delta"] == 0.0  # valid runs only: eicu-gcs is still 1.0 against 1.0
    assert "all_attempts" not in oracle


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("no headless Chromium: `apt-get install -y chromium`")


def _screenshot(page: Path, shot: Path) -> None:
    done = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--window-size=1300,9000", f"--screenshot={shot}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert shot.is_file(), done.stderr[-2000:]


def _coloured_pixels(shot: Path) -> int:
    import numpy as np
    from PIL import Image

    hsv = np.asarray(Image.open(shot).convert("HSV"))
    return int(np.count_nonzero((hsv[..., 1] > 90) & (hsv[..., 2] > 60)))


def test_report_page_renders_in_a_headless_browser_with_its_plots_visible(built: dict[str, Any],
                                                                          tmp_path: Path) -> None:
    out = tmp_path / "report"
    report.write(built, out)
    page = out / "report.html"
    assert page.read_text().count('<img alt="') >= 4  # forest plots, heatmap, distributions
    dom = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    assert "shell: with-skill vs no-skill (native): delta" in dom
    _screenshot(page, tmp_path / "with_plots.png")
    # the same page with its images' data removed: what the plots contribute to the rendered page
    blank = out / "no_plots.html"
    blank.write_text(page.read_text().replace('src="data:image/png;base64,', 'src="data:image/png;base64,x'))
    _screenshot(blank, tmp_path / "without_plots.png")
    with_plots, without = _coloured_pixels(tmp_path / "with_plots.png"), _coloured_pixels(tmp_path / "without_plots.png")
    assert with_plots > 20 * max(without, 100), (with_plots, without)
