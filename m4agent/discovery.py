"""Which folders under a path are runs: the one rule every reader of run records follows.

An agent writes only in its workspace, and the workspace is kept inside the campaign folder
(``runs/<task>/<key>/attempts/NNNN/workspace/``). A reader that took every ``run.json`` or
``result.json`` it met for a run would count what the agent wrote (a run.json naming another task,
a result.json with reward 1.0, a whole planted campaign) as the harness's own record. So the
campaign layout decides, never what a walk meets:

- a **campaign folder** (``campaign.json`` and ``plan.json``) holds exactly its planned runs' folders,
  ``runs/<task>/<key>/`` as ``plan.json`` names them; nothing else below it is looked at;
- a path **inside a campaign** (its ``runs/``, a task's folder, a run folder) holds the planned runs at
  or below it; a path below a run folder (an attempt, a workspace) holds none;
- anywhere else (a **plain results tree**) every folder holding one of the files its reader looks for
  is a run, at any depth; folders the campaign layout names (``attempts/``, ``workspace/``) are never
  entered, wherever they are, and neither are links;
- a campaign is trusted only outside every run folder (a folder holding ``run.json`` or
  ``result.json``, which a campaign folder never does): the outermost campaign above a path is the
  one that counts, and a campaign at or below a run folder is walked as a plain folder, its plan
  never read.

Readers (``grade --results-root``, ``report``, ``view``, Harbor's job folders read back by
``export.harbor_results``, which adds the folders Harbor lets the agent write) take their folders
from here and open the files in them themselves.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from m4agent.campaign_folder import CAMPAIGN_FILE, PLAN_FILE, RunSpec, planned_runs, run_folder
from m4agent.errors import M4AgentError
from m4agent.run_folder import ATTEMPTS_DIR, RESULT_FILE, RUN_FILE, RUNS_DIR, WORKSPACE_DIR

LAYOUT_FOLDERS = frozenset({ATTEMPTS_DIR, WORKSPACE_DIR})  # never entered
RUN_RECORDS = frozenset({RUN_FILE, RESULT_FILE})  # what makes a folder a run folder


@dataclass(frozen=True)
class CampaignRuns:
    """A trusted campaign and those of its planned runs a path covers, in plan order."""

    folder: Path
    specs: tuple[RunSpec, ...]
    whole: bool  # the path is the campaign, its runs/ folder or above it: every planned run

    def run_folder(self, spec: RunSpec) -> Path:
        return run_folder(self.folder, spec)


@dataclass(frozen=True)
class Found:
    """The runs at or below a path: its campaigns, and the run folders holding one of the reader's files."""

    campaigns: tuple[CampaignRuns, ...]
    planned: tuple[Path, ...]  # folders of planned runs (of ``campaigns``)
    plain: tuple[Path, ...]  # folders of plain results trees, outside every campaign

    @property
    def folders(self) -> list[Path]:
        """Every run folder, planned or plain, sorted."""
        return sorted((*self.planned, *self.plain))


def _mode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return None


def _holds(folder: Path, names: Collection[str]) -> bool:
    """Whether ``folder`` has an entry of one of ``names`` (what the entry is, is its reader's question)."""
    return any(_mode(folder / name) is not None for name in names)


def _is_campaign(folder: Path) -> bool:
    """``campaign.json`` and ``plan.json`` as regular files (links are not followed), and no run record."""
    modes = [_mode(folder / name) for name in (CAMPAIGN_FILE, PLAN_FILE)]
    return all(mode is not None and stat.S_ISREG(mode) for mode in modes) and not _holds(folder, RUN_RECORDS)


def _planned_runs(campaign_dir: Path) -> tuple[RunSpec, ...]:
    try:
        return tuple(planned_runs(campaign_dir))
    except (KeyError, TypeError, AttributeError) as exc:
        raise M4AgentError(f"{campaign_dir / PLAN_FILE} is not a plan m4agent wrote ({exc!r}); the "
                           "campaign folder is damaged") from exc


@dataclass(frozen=True)
class _Above:
    """What lies above a path's real location, read from the filesystem's root down."""

    campaign: Path | None = None  # the trusted campaign the path is inside
    in_run: bool = False  # a run folder is above the path: no campaign at or below it is trusted
    in_layout: bool = False  # the path is (inside) a skipped folder (attempts/, workspace/) of a run


def _above(real: Path, skipped: Collection[str] = LAYOUT_FOLDERS) -> _Above:
    """Walk down to ``real`` as ``find`` walks: the first trusted campaign met is the one it lies in; a
    skipped folder met below a run folder means it lies in what an agent wrote."""
    in_run = False
    for folder in reversed(real.parents):
        if not in_run and _is_campaign(folder):
            return _Above(campaign=folder)
        if in_run and folder.name in skipped:
            return _Above(in_run=True, in_layout=True)
        in_run = in_run or _holds(folder, RUN_RECORDS)
    return _Above(in_run=in_run, in_layout=in_run and real.name in skipped)


def _planned_holding(folder: Path, marks: Collection[str]) -> bool:
    mode = _mode(folder)
    return mode is not None and stat.S_ISDIR(mode) and _holds(folder, marks)


def _inside(campaign_dir: Path, root: Path, real: Path, marks: Collection[str]) -> Found:
    """The planned runs of ``campaign_dir`` at or below ``root`` (whose real location is ``real``)."""
    specs, planned = [], []
    for spec in _planned_runs(campaign_dir):
        folder = run_folder(campaign_dir, spec)
        if folder == real or real in folder.parents:
            specs.append(spec)
            given = root / folder.relative_to(real)
            if _planned_holding(given, marks):
                planned.append(given)
    runs = CampaignRuns(campaign_dir, tuple(specs), whole=real == campaign_dir / RUNS_DIR)
    return Found(campaigns=(runs,), planned=tuple(planned), plain=())


def find(root: Path, marks: Collection[str], never_enter: Collection[str] = ()) -> Found:
    """The runs at or below ``root`` by the rule above; ``marks`` are the names that make a folder of a
    plain tree (or a planned run's folder) a run for the reader (grading: run.json or output.csv), and
    ``never_enter`` names folders a plain tree's own layout gives the agent, skipped like the campaign
    layout's. Folders are given under ``root`` as given."""
    skipped = LAYOUT_FOLDERS | frozenset(never_enter)
    real = root.resolve()
    above = _above(real, skipped)
    if above.campaign is not None:
        return _inside(above.campaign, root, real, marks)
    if above.in_layout:
        return Found(campaigns=(), planned=(), plain=())
    campaigns: list[CampaignRuns] = []
    plain: list[Path] = []
    pending = [(root, above.in_run)]
    while pending:
        folder, in_run = pending.pop()
        if not in_run and _is_campaign(folder):
            campaigns.append(CampaignRuns(folder, _planned_runs(folder), whole=True))
            continue
        try:
            with os.scandir(folder) as scan:
                entries = list(scan)
        except OSError:
            continue
        names = {entry.name for entry in entries}
        if not names.isdisjoint(marks):
            plain.append(folder)
        inner = in_run or not names.isdisjoint(RUN_RECORDS)
        pending.extend((Path(entry.path), inner) for entry in entries
                       if entry.name not in skipped and entry.is_dir(follow_symlinks=False))
    campaigns.sort(key=lambda found: found.folder)
    planned = [c.run_folder(spec) for c in campaigns for spec in c.specs]
    return Found(campaigns=tuple(campaigns), planned=tuple(f for f in planned if _planned_holding(f, marks)),
                 plain=tuple(sorted(plain)))


def is_run(folder: Path, marks: Collection[str] = (RUN_FILE,)) -> bool:
    """Whether ``folder`` itself is a run folder by the rule (a planned run of the campaign it lies in;
    outside every campaign and every run's attempts, a folder holding one of ``marks``)."""
    return folder in find(folder, marks).folders


def campaign_at(folder: Path) -> CampaignRuns | None:
    """The campaign ``folder`` is, when the rule trusts it (not inside another campaign or a run folder)."""
    return next((found for found in find(folder, ()).campaigns if found.folder == folder), None)


def campaign_of(run_folder: Path) -> Path | None:
    """The trusted campaign a folder lies inside (its real location), if any."""
    return _above(run_folder.resolve()).campaign
