"""Harbor's trial results back into m4agent: a run table that `m4agent report` reads.

A Harbor job folder holds one folder per trial with Harbor's ``result.json`` (the trial: its task
name, agent, model, exception) and, under ``verifier/``, what our exported verifier wrote: m4agent's
own ``result.json`` (reward, match rates, checks, key precision and recall). The table has the
columns of M4Bench's published run tables (``final_*_runs.csv``), which `m4agent report` reads
like any campaign: task, condition and schema from the exported task's name
(``m4agent/<task>__<condition>__<schema>``), trials numbered per combination in start order.

Harbor mounts a trial's ``agent/``, ``verifier/`` and ``artifacts/`` into the environment, so
whatever lies below them is the agent's word: trials are found by ``m4agent.discovery``'s
walk, which never enters them (nor a link), and the verifier's ``result.json`` is read only beside
its trial.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from m4agent import discovery
from m4agent.errors import M4AgentError

PREFIX = "m4agent/"
RESULT_FILE = "result.json"  # Harbor's TrialResult, and our verifier's under verifier/
AGENT_WRITABLE = ("agent", "verifier", "artifacts", "steps")  # a trial's folders the environment writes
COLUMNS = ("task", "condition", "schema", "agent", "model", "trial", "run_id", "reward", "errors", "failed",
           "agent_returncode", "key_precision", "key_recall", "key_f1", "extra_keys", "agent_unique_keys",
           "truth_rows", "elapsed_seconds", "match_rates")


def _trial_results(job_dir: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Harbor's trial results under ``job_dir``: the result.json files naming a trial and a task."""
    found = []
    for folder in discovery.find(job_dir, (RESULT_FILE,), never_enter=AGENT_WRITABLE).plain:
        path = folder / RESULT_FILE
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "trial_name" in data and str(data.get("task_name", "")).startswith(PREFIX):
            found.append((path.parent, data))
    return found


def _row(trial_dir: Path, data: dict[str, Any]) -> dict[str, Any]:
    parts = data["task_name"][len(PREFIX):].split("__")
    if len(parts) != 3:
        raise M4AgentError(f"{trial_dir / RESULT_FILE}: task name {data['task_name']!r} is not an exported "
                           "m4agent task (m4agent/<task>__<condition>__<schema>)")
    task, condition, schema = parts
    agent_info = data.get("agent_info") or {}
    model_info = agent_info.get("model_info") or {}
    ours_path = trial_dir / "verifier" / RESULT_FILE
    ours = json.loads(ours_path.read_text()) if ours_path.is_file() else None
    crashed = data.get("exception_info") is not None
    if ours is None:  # the verifier never graded: counted as the agent's failure, reward 0
        graded: dict[str, Any] = {"reward": 0.0, "checks": [], "errors": ["not graded"]}
    else:
        graded = ours
    checks = graded.get("checks") or []
    output_present = any(c.get("name") == "test_output_exists" and c.get("passed") for c in checks)
    started, finished = data.get("started_at"), data.get("finished_at")
    return {
        "task": task, "condition": condition, "schema": schema,
        "agent": agent_info.get("name", "unknown"), "model": model_info.get("name") or agent_info.get("name", ""),
        "run_id": data["trial_name"], "reward": graded.get("reward", 0.0),
        "errors": 0 if output_present else 1,
        "failed": sum(1 for c in checks if not c.get("passed")),
        "agent_returncode": 1 if crashed else 0,
        "key_precision": graded.get("key_precision"), "key_recall": graded.get("key_recall"),
        "key_f1": graded.get("key_f1"), "extra_keys": graded.get("extra_keys"),
        "agent_unique_keys": graded.get("agent_unique_keys"), "truth_rows": graded.get("truth_rows"),
        "elapsed_seconds": _seconds(started, finished),
        "match_rates": json.dumps(graded.get("match_rates") or {}),
        "_started": started or "",
    }


def _seconds(started: str | None, finished: str | None) -> float | None:
    from datetime import datetime

    if not started or not finished:
        return None
    return (datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds()


def run_table(job_dir: Path, out: Path) -> Path:
    """Write the run table of every exported-task trial under ``job_dir`` to ``out`` (CSV); return ``out``."""
    trials = _trial_results(job_dir)
    if not trials:
        raise M4AgentError(f"no Harbor trial of an exported m4agent task under {job_dir}; point at the job "
                           "folder `harbor run` wrote (its trials hold result.json)")
    rows = [_row(trial_dir, data) for trial_dir, data in trials]
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    for row in sorted(rows, key=lambda r: (r["_started"], r["run_id"])):
        combination = (row["task"], row["condition"], row["schema"], row["agent"], row["model"])
        counts[combination] += 1
        row["trial"] = counts[combination]
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with partial.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(sorted(rows, key=lambda r: (r["task"], r["condition"], r["schema"], r["trial"])))
    partial.replace(out)
    return out
