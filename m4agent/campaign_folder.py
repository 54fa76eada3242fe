"""The campaign folder's contract: what defines a run, where its folder is, and the plan that names them.

::

    CAMPAIGN/
      campaign.json            what the campaign was planned from (its matrices, tasks folder, id)
      plan.json                {"runs": {key: RunSpec fields}, "skipped": [...]}
      runs/<task>/<key>/       one run folder per planned run (its files: ``run_folder``)

A run's ``key`` is a content hash of what defines it (``RunSpec``): the task's digest, condition,
schema variant, agent and agent version, model and trial. Nothing else (ports, paths, times, worker
counts) enters the key, so a campaign resumed after an upgrade of unrelated code, or on another
machine, finds its runs again.

The harness writes these files (``harness.campaign``); every reader (grading a results tree,
reports, the viewer, estimates) finds them through ``discovery``, which lives on this floor too, so
that which folders are runs is one rule that no floor has to reach up for.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from m4agent.errors import M4AgentError
from m4agent.run_folder import RUNS_DIR, read_json

CAMPAIGN_FILE = "campaign.json"
PLAN_FILE = "plan.json"


@dataclass(frozen=True)
class RunSpec:
    """What defines a run; its key is a hash of exactly these fields."""

    task: str
    task_digest: str
    condition: str
    schema: str
    agent: str
    agent_version: str
    model: str
    trial: int

    @property
    def key(self) -> str:
        canonical = json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:20]

    @property
    def label(self) -> str:
        """A readable name for messages and progress lines."""
        return f"{self.task} {self.condition} {self.schema} {self.agent}/{self.model} t{self.trial}"


def run_folder(campaign: Path, spec: RunSpec) -> Path:
    return campaign / RUNS_DIR / spec.task / spec.key


def read_meta(campaign_dir: Path) -> dict:
    """``campaign.json``, or a clear error when the folder holds no campaign."""
    path = campaign_dir / CAMPAIGN_FILE
    if not path.exists():
        raise M4AgentError(f"{campaign_dir} is not a campaign folder (no {CAMPAIGN_FILE}); "
                           "start one with `m4agent campaign plan MATRIX --dir DIR`")
    return read_json(path)


def planned_runs(campaign_dir: Path) -> list[RunSpec]:
    """Every run ``plan.json`` names, in plan order."""
    read_meta(campaign_dir)
    runs = read_json(campaign_dir / PLAN_FILE)["runs"]
    return [RunSpec(**spec) for spec in runs.values()]
