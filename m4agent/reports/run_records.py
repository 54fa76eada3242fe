"""Runs for a report, read from any of three sources into one record type.

- **an m4agent campaign folder** (``campaign.json``, ``plan.json``, ``runs/<task>/<key>/``): every
  planned run, its final ``result.json`` and every attempt; nMAE is computed from the run's
  ``output.csv`` and the campaign's ``.truth/<task>.csv``;
- **a folder of M4Bench ``result.json`` files** (any depth, one per run folder, as M4Bench's
  ``run.py`` exports them); duplicates of one run key keep the latest timestamp, as M4Bench's
  follow-up manifest does;
- **one of M4Bench's published run tables** (``final_*_runs.csv``, ``followup_canonical_runs.csv``).

A folder is read by ``m4agent.discovery``'s rule: a campaign's runs are its planned runs
(also when the folder given is its ``runs/`` or a folder above it, beside other campaigns and
M4Bench result folders), and no record an agent could have written (in an attempt, a workspace) is
ever read as a run.

Each run becomes one ``RunRecord``. ``Observation``s are what estimates average: one per valid run
(``valid_observations``); a run without a valid final outcome is never the model's zero.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from m4agent import campaign_folder, discovery
from m4agent.errors import M4AgentError
from m4agent.harness import records
from m4agent.run_folder import OUTPUT_NAME, RESULT_FILE, RUN_FILE, RUNS_DIR, read_json

SOURCE_CAMPAIGN = "m4agent-campaign"
SOURCE_RESULTS = "m4bench-results"
SOURCE_TABLE = "m4bench-table"

# outcomes that say nothing about the model (m4agent retries them; M4Bench scored them 0)
INFRA_OUTCOMES = frozenset({"quota", "invalid_key", "infra_error"})
# M4Bench's failure_reason values, as m4agent's outcomes
FAILURE_OUTCOMES = {
    "timeout": "timeout", "exception": "agent_error", "agent_nonzero_exit": "agent_error",
    "no_output": "no_output", "disallowed_egress": "policy_violation", "external_tool_use": "policy_violation",
    "claude_memory_escape": "policy_violation", "filesystem_canary": "policy_violation",
    "contamination_lint": "policy_violation", "auth": "invalid_key", "rate_limit": "quota",
    "missing_agent_db": "infra_error",
}


@dataclass
class RunRecord:
    """One planned or observed run, whatever its source; ``None`` where the source does not say."""

    task: str
    condition: str
    schema: str
    agent: str
    model: str
    trial: int
    run_id: str = ""
    source: str = ""
    family: str = ""
    mode: str = ""
    outcome: str = "scored"  # scored, timeout, agent_error, no_output, policy_violation, quota, infra_error, missing
    reward: float | None = None
    strict_pass: bool = False
    key_precision: float | None = None
    key_recall: float | None = None
    key_f1: float | None = None
    extra_keys: int | None = None
    agent_unique_keys: int | None = None
    truth_rows: int | None = None
    nmae: float | None = None
    nmae_columns: int = 0
    publishable: bool | None = None
    isolated: bool | None = None
    filesystem_canary: bool | None = None
    contamination_lint: bool | None = None
    agent_returncode: int | None = None
    diagnostics_failed: bool | None = None
    elapsed_seconds: float | None = None
    attempt_outcomes: list[str] = field(default_factory=list)  # every ended attempt, in order
    flags: list[str] = field(default_factory=list)  # graded, and set apart for review (e.g. truth_copy)
    budget_exceeded: bool = False  # cost more than the campaign's [budget] per_run_usd
    match_rates: dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str, str, str, int]:
        return (self.agent, self.task, self.condition, self.schema, self.model, self.trial)

    @property
    def valid(self) -> bool:
        """A final outcome that is the model's own (not a quota stop, infrastructure failure or absence)."""
        return self.reward is not None and self.outcome not in INFRA_OUTCOMES and self.outcome != "missing"


@dataclass(frozen=True)
class Observation:
    """What an estimate averages: one reward (and secondary metrics) of one run or attempt."""

    agent: str
    task: str
    condition: str
    schema: str
    model: str
    reward: float
    strict_pass: bool
    key_f1: float | None
    key_precision: float | None
    nmae: float | None
    extra_keys: int
    nmae_columns: int = 0


@dataclass
class Loaded:
    """The runs of every source, and for campaigns the plan they are checked against."""

    runs: list[RunRecord]
    sources: list[dict[str, Any]]
    planned: list[tuple[str, str, str, str, str, int]] | None = None  # run keys a plan expects
    unexpected: list[str] = field(default_factory=list)  # run folders no plan names


def valid_observations(runs: Iterable[RunRecord]) -> list[Observation]:
    """One observation per run with a valid final outcome."""
    return [Observation(agent=run.agent, task=run.task, condition=run.condition, schema=run.schema,
                        model=run.model, reward=run.reward or 0.0, strict_pass=run.strict_pass, key_f1=run.key_f1,
                        key_precision=run.key_precision, nmae=run.nmae, extra_keys=run.extra_keys or 0,
                        nmae_columns=run.nmae_columns)
            for run in runs if run.valid]


# -- task metadata ------------------------------------------------------------------------------

def _task_index(tasks_dir: Path | None) -> dict[str, tuple[str, str]]:
    from m4agent.registry import TASKS_DIR, all_tasks

    try:
        return {name: (task.family, task.mode) for name, task in all_tasks(tasks_dir or TASKS_DIR).items()}
    except M4AgentError:
        return {}


def _annotate(runs: list[RunRecord], tasks_dir: Path | None) -> None:
    """Family and mode of each run's task (the task's folder and metadata; else the name's first word)."""
    index = _task_index(tasks_dir)
    if tasks_dir is not None:
        index = {**_task_index(None), **index}
    for run in runs:
        family, mode = index.get(run.task, (run.task.split("-", 1)[0], "raw" if run.task.endswith("-raw")
                                            else "standard"))
        run.family = run.family or family
        run.mode = run.mode or mode


# -- values as the sources spell them -------------------------------------------------------------

def _float(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _int(value: Any) -> int | None:
    number = _float(value)
    return None if number is None else int(number)


def _bool(value: Any) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    return None


def _rates(value: Any) -> dict[str, float]:
    if isinstance(value, dict):
        return {str(k): float(v) for k, v in value.items()}
    if not value:
        return {}
    try:
        parsed = ast.literal_eval(str(value))  # the published tables print dicts as Python literals
    except (ValueError, SyntaxError):
        return {}
    return {str(k): float(v) for k, v in parsed.items()} if isinstance(parsed, dict) else {}


def _m4bench_outcome(errors: int | None, returncode: int | None, failure_reason: str | None) -> str:
    if failure_reason:
        return FAILURE_OUTCOMES.get(failure_reason, "agent_error")
    if not errors:
        return "scored"
    return "agent_error" if returncode not in (0, None) else "no_output"


def _key_f1(precision: float | None, recall: float | None) -> float | None:
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


# -- M4Bench's published tables -------------------------------------------------------------------

def load_table(path: Path) -> list[RunRecord]:
    """One of M4Bench's published run tables (``final_*_runs.csv``, ``followup_canonical_runs.csv``)."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or not {"task", "condition", "model", "trial", "reward"} <= set(rows[0]):
        raise M4AgentError(f"{path} is not a run table (it needs the columns task, condition, model, trial "
                           "and reward, as M4Bench's final_*_runs.csv have)")
    runs = []
    for row in rows:
        errors, failed = _int(row.get("errors")), _int(row.get("failed"))
        returncode = _int(row.get("agent_returncode"))
        reward = _float(row.get("reward"))
        runs.append(RunRecord(
            task=row["task"], condition=row["condition"], schema=row.get("schema") or "native",
            agent=row.get("agent") or _agent_from_run_id(row.get("run_id", "")), model=row["model"],
            trial=int(float(row["trial"])), run_id=row.get("run_id", ""), source=SOURCE_TABLE,
            outcome=_m4bench_outcome(errors, returncode, None), reward=reward,
            strict_pass=(failed or 0) == 0 and (errors or 0) == 0,
            key_precision=_float(row.get("key_precision")), key_recall=_float(row.get("key_recall")),
            key_f1=_float(row.get("key_f1")), extra_keys=_int(row.get("extra_keys")),
            agent_unique_keys=_int(row.get("agent_unique_keys")), truth_rows=_int(row.get("truth_rows")),
            nmae=_float(row.get("ordered_value_nmae")), nmae_columns=_int(row.get("ordered_value_columns")) or 0,
            publishable=_bool(row.get("publishable")), isolated=_bool(row.get("isolated")),
            filesystem_canary=_bool(row.get("filesystem_canary")),
            contamination_lint=_bool(row.get("contamination_lint")), agent_returncode=returncode,
            diagnostics_failed=_bool(row.get("diagnostics_failed")),
            elapsed_seconds=_float(row.get("elapsed_seconds")),
            attempt_outcomes=[_m4bench_outcome(errors, returncode, None)],
            match_rates=_rates(row.get("match_rates"))))
    return runs


def _agent_from_run_id(run_id: str) -> str:
    for agent in ("codex", "claude", "gemini", "pi-ollama", "pi"):
        if f"_{agent}_" in run_id:
            return agent
    return "unknown"


# -- a folder of M4Bench result.json files ---------------------------------------------------------

TIMESTAMP = re.compile(r"_(\d{8}_\d{6})$")


def load_results_folders(folders: Sequence[Path]) -> list[RunRecord]:
    """The M4Bench ``result.json`` of each run folder (files of another format are passed over); of
    runs sharing a key the latest timestamp wins."""
    latest: dict[tuple[str, str, str, str, str, int], tuple[str, RunRecord]] = {}
    for folder in folders:
        path = folder / RESULT_FILE
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise M4AgentError(f"cannot read {path} ({exc}); remove or repair it") from exc
        if not isinstance(data, dict) or "test_results" not in data and "agent_result" not in data:
            continue
        record = _m4bench_result(data, path.parent)
        match = TIMESTAMP.search(record.run_id)
        stamp = match.group(1) if match else ""
        if record.key not in latest or stamp >= latest[record.key][0]:
            latest[record.key] = (stamp, record)
    return [record for _, record in latest.values()]


def _m4bench_result(data: dict[str, Any], folder: Path) -> RunRecord:
    test = data.get("test_results") or {}
    agent = data.get("agent_result") or {}
    canary = data.get("filesystem_canary") or {}
    lint = data.get("contamination_lint") or {}
    errors, failed = _int(test.get("errors")), _int(test.get("failed"))
    returncode = _int(agent.get("returncode", agent.get("exit_code")))
    outcome = _m4bench_outcome(errors, returncode, agent.get("failure_reason"))
    precision = _float(test.get("key_precision"))
    unique, extra = _int(test.get("agent_unique_keys")), _int(test.get("extra_keys"))
    truth_rows = _int(test.get("truth_rows"))
    recall = _float(test.get("key_recall"))
    if recall is None and truth_rows and unique is not None:
        recall = max(unique - (extra or 0), 0) / truth_rows
    return RunRecord(
        task=str(data.get("task")), condition=str(data.get("condition")),
        schema=str(data.get("schema") or "native"), agent=str(data.get("agent")), model=str(data.get("model")),
        trial=int(data.get("trial") or 1), run_id=str(data.get("run_id") or folder.name), source=SOURCE_RESULTS,
        outcome=outcome, reward=_float(test.get("reward")) if test else 0.0,
        strict_pass=bool(test) and (failed or 0) == 0 and (errors or 0) == 0,
        key_precision=precision, key_recall=recall, key_f1=_key_f1(precision, recall), extra_keys=extra,
        agent_unique_keys=unique, truth_rows=truth_rows, publishable=_bool(data.get("publishable")),
        isolated=_bool(data.get("isolated")), filesystem_canary=_bool(canary.get("passed")),
        contamination_lint=_bool(lint.get("passed")), agent_returncode=returncode,
        diagnostics_failed=_bool(test.get("diagnostics_failed")),
        elapsed_seconds=_float(agent.get("elapsed_seconds")), attempt_outcomes=[outcome],
        match_rates=_rates(test.get("match_rates")))


# -- an m4agent campaign folder --------------------------------------------------------------------

def load_campaign(found: discovery.CampaignRuns) -> Loaded:
    """The planned runs of an m4agent campaign that a path covers (finished or not), their attempts,
    and, when it covers them all, the run folders no plan names."""
    from m4agent.reports import nmae

    campaign_dir, specs = found.folder, found.specs
    meta = read_json(campaign_dir / campaign_folder.CAMPAIGN_FILE)
    tasks_dir = Path(meta["tasks_dir"]) if meta.get("tasks_dir") else None
    planned_keys = {spec.key for spec in campaign_folder.planned_runs(campaign_dir)}
    truth = nmae.TruthColumns(campaign_dir / ".truth", tasks_dir)
    runs = []
    for spec in specs:
        folder = found.run_folder(spec)
        ended = records.attempts(folder)
        record = RunRecord(task=spec.task, condition=spec.condition, schema=spec.schema, agent=spec.agent,
                           model=spec.model, trial=spec.trial, run_id=spec.key, source=SOURCE_CAMPAIGN,
                           outcome="missing", attempt_outcomes=[a.outcome.value for a in ended])
        result_path = folder / RESULT_FILE
        if result_path.exists():
            _fill_from_result(record, read_json(result_path))
            if record.outcome == "scored" or (folder / OUTPUT_NAME).is_file():
                record.nmae, record.nmae_columns = truth.run_nmae(spec.task, folder / OUTPUT_NAME)
        elif ended and all(a.outcome.retryable for a in ended):
            record.outcome = ended[-1].outcome.value
        runs.append(record)
    unexpected = []
    runs_root = campaign_dir / RUNS_DIR
    if found.whole and runs_root.is_dir():
        for run_json in sorted(runs_root.glob(f"*/*/{RUN_FILE}")):
            if run_json.parent.name not in planned_keys:
                unexpected.append(str(run_json.parent.relative_to(campaign_dir)))
    _annotate(runs, tasks_dir)
    planned = [(s.agent, s.task, s.condition, s.schema, s.model, s.trial) for s in specs]
    return Loaded(runs=runs, planned=planned, unexpected=unexpected,
                  sources=[{"path": str(campaign_dir), "kind": SOURCE_CAMPAIGN, "runs": len(runs)}])


def _fill_from_result(record: RunRecord, result: dict[str, Any]) -> None:
    grading = result.get("grading") or {}
    record.outcome = str(result.get("outcome", "scored"))
    record.reward = float(result.get("reward", 0.0))
    record.strict_pass = bool(result.get("strict_pass"))
    record.publishable = _bool(result.get("publishable"))
    record.agent_returncode = _int(result.get("exit_code"))
    record.elapsed_seconds = _float((result.get("phases") or {}).get("agent"))
    record.match_rates = _rates(grading.get("match_rates"))
    record.flags = sorted({str(flag.get("rule")) for flag in result.get("flags") or [] if isinstance(flag, dict)})
    record.budget_exceeded = result.get("budget_exceeded") is True
    if grading:
        record.key_precision = _float(grading.get("key_precision"))
        record.key_recall = _float(grading.get("key_recall"))
        record.key_f1 = _float(grading.get("key_f1"))
        record.extra_keys = _int(grading.get("extra_keys"))
        record.agent_unique_keys = _int(grading.get("agent_unique_keys"))
        record.truth_rows = _int(grading.get("truth_rows"))
        record.diagnostics_failed = not record.strict_pass
    else:  # not graded (no output, a policy violation): nothing of the truth was found
        record.key_precision = record.key_recall = record.key_f1 = 0.0
        record.extra_keys = 0
        record.diagnostics_failed = True


# -- any of them ----------------------------------------------------------------------------------

def _read_folder(path: Path) -> list[tuple[str, str, Loaded]]:
    """The sources in a folder (discovery's rule): each campaign it is, lies in or holds, and the
    M4Bench result.json files of its other folders; (kind, path, runs) each."""
    found = discovery.find(path, (RESULT_FILE,))
    read = [(SOURCE_CAMPAIGN, str(c.folder), load_campaign(c)) for c in found.campaigns]
    results = load_results_folders(found.plain)
    if results:
        read.append((SOURCE_RESULTS, str(path), Loaded(runs=results, sources=[])))
    if not any(loaded.runs for _, _, loaded in read):
        inside = f" (it lies inside campaign {found.campaigns[0].folder}, whose runs are runs/<task>/<key>/)" \
            if found.campaigns and not found.campaigns[0].whole else ""
        raise M4AgentError(f"{path} holds no run{inside}; give a campaign folder, a folder of M4Bench "
                           "result.json files or a run table")
    return read


def _read(path: Path) -> list[tuple[str, str, Loaded]]:
    """The sources a path names: a run table, or the campaigns and result folders of a folder."""
    if path.is_file():
        if path.suffix.lower() != ".csv":
            raise M4AgentError(f"{path} is a file but not a run table (.csv); give a campaign folder, a folder "
                               "of M4Bench result.json files or one of M4Bench's final_*_runs.csv")
        return [(SOURCE_TABLE, str(path), Loaded(runs=load_table(path), sources=[]))]
    if not path.is_dir():
        raise M4AgentError(f"{path} does not exist; give a campaign folder, a folder of M4Bench result.json "
                           "files or one of M4Bench's final_*_runs.csv")
    return _read_folder(path)


def load(paths: Sequence[Path], tasks_dir: Path | None = None) -> Loaded:
    """The runs of every path; a run key seen again in a later source replaces the earlier run (as
    M4Bench's reruns replace release runs)."""
    if not paths:
        raise M4AgentError("give at least one RESULTS path (a campaign folder, a folder of result.json "
                           "files or a run table)")
    merged: dict[tuple[str, str, str, str, str, int], RunRecord] = {}
    sources: list[dict[str, Any]] = []
    planned: list[tuple[str, str, str, str, str, int]] | None = None
    unexpected: list[str] = []
    for path in paths:
        for kind, where, loaded in _read(path):
            runs = loaded.runs
            if kind == SOURCE_CAMPAIGN:
                planned = (planned or []) + (loaded.planned or [])
                unexpected += loaded.unexpected
            else:
                _annotate(runs, tasks_dir)
            replaced = sum(1 for run in runs if run.key in merged)
            for run in runs:
                merged[run.key] = run
            sources.append({"path": where, "kind": kind, "runs": len(runs), "replaced": replaced})
    return Loaded(runs=list(merged.values()), sources=sources, planned=planned, unexpected=unexpected)
