"""A campaign does not start on a task tree that leaks answers (the preflight lint runs first)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.harness import write_matrix
from support.task_tree import task_tree_with_skills

from m4agent import campaign_folder
from m4agent.errors import M4AgentError
from m4agent.harness import campaign, records


def test_a_leaking_instruction_stops_the_campaign_before_any_attempt(tmp_path: Path) -> None:
    tree = task_tree_with_skills(tmp_path / "tasks")
    instruction = tree / "sofa" / "mimic-sofa-24h" / "instruction.md"
    instruction.write_text(instruction.read_text() + "\nHint: SELECT * FROM mimiciv_derived.sofa\n")
    matrix = write_matrix(tmp_path / "m.toml", '[campaign]\ntasks = ["mimic-sofa-24h"]\n[[agents]]\nname = "null"\n')
    campaign_dir = tmp_path / "campaign"
    campaign.plan(matrix, campaign_dir, tasks_dir=tree)
    with pytest.raises(M4AgentError, match=r"(?s)preflight found 2 leak.*instruction.md:\d+"):
        campaign.run(campaign_dir, tmp_path / "data")
    [spec] = campaign_folder.planned_runs(campaign_dir)
    assert records.attempt_folders(campaign_folder.run_folder(campaign_dir, spec)) == []
