"""M4Bench's grading of one run, restated with pandas: the per-run baseline.

This is the comparison the original harness performs (read two CSVs with
pandas, keep literal labels, normalise keys, left-join truth to the agent's
first row per key, compare column by column, derive reward and strict checks),
written here as an independent second implementation. Tests hold the SQL
grading to it on every corpus output, and ``benchmarks/bench_grading.py``
times it as the per-run baseline. It is test support: nothing in ``m4agent``
imports it. ``export_truth`` writes a reference the way M4Bench exports its
ground truth (DuckDB -> pandas -> ``to_csv``): the text the product's one
rendering, ``m4agent.reference_export.render_reference``, is held to
(tests/test_grading_truth_export.py).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from m4agent.registry import Task

_TEMPORAL = r"\d{4}-\d{2}-\d{2}|T\d{2}:|\d{1,2}:\d{2}"


def read_csv(path: Path | str) -> pd.DataFrame:
    """Only empty cells are missing; 'None', 'NA', 'NaN' stay text."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _normalise_keys(frame: pd.DataFrame, keys: tuple[str, ...]) -> pd.DataFrame:
    out = frame.copy()
    for key in keys:
        as_number = pd.to_numeric(out[key], errors="coerce")
        if as_number.notna().all():
            out[key] = as_number
            continue
        with warnings.catch_warnings():  # pandas warns when it falls back to per-value parsing
            warnings.simplefilter("ignore", UserWarning)
            as_time = pd.to_datetime(out[key], errors="coerce")
        out[key] = as_time if as_time.notna().all() else out[key].astype("string")
    return out


def _column_matches(truth: pd.Series, agent: pd.Series, tolerance: float) -> pd.Series:
    truth_number = pd.to_numeric(truth, errors="coerce")
    agent_number = pd.to_numeric(agent, errors="coerce")
    has_truth = truth.notna()
    both = has_truth & agent.notna()
    if truth_number[has_truth].notna().all() and agent_number[both].notna().all():
        return (truth_number - agent_number).abs() <= float(tolerance or 0)
    first_values = truth[has_truth].astype("string").head(50)
    if first_values.str.contains(_TEMPORAL, regex=True, na=False).any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            truth_time = pd.to_datetime(truth, errors="coerce")
            agent_time = pd.to_datetime(agent, errors="coerce")
        if truth_time[has_truth].notna().all() and agent_time[both].notna().all():
            return (truth_time - agent_time).abs() <= pd.to_timedelta(tolerance or 0, unit="s")
    return truth.astype("string") == agent.astype("string")


def compare(agent: pd.DataFrame, truth: pd.DataFrame, task: Task) -> dict[str, Any]:
    """Per-column matched/total and key diagnostics; raises where the original raises."""
    keys = task.key_columns
    columns = task.scored_columns
    absent_keys = [k for k in keys if k not in agent.columns]
    if any(c not in truth.columns for c in (*keys, *columns)):
        raise ValueError("reference lacks a key or scored column")
    if absent_keys:
        raise ValueError(f"agent output missing key columns: {', '.join(absent_keys)}")
    agent = _normalise_keys(agent, keys)
    truth = _normalise_keys(truth, keys)
    agent_rows = len(agent)
    duplicates = int(agent.duplicated(subset=list(keys)).sum())
    agent = agent.drop_duplicates(subset=list(keys), keep="first")
    truth_keys = set(truth[list(keys)].itertuples(index=False, name=None))
    agent_keys = set(agent[list(keys)].itertuples(index=False, name=None))
    in_truth = len(agent_keys & truth_keys)
    extra = len(agent_keys) - in_truth
    merged = truth.merge(agent, on=list(keys), how="left", suffixes=("_truth", "_agent"), indicator=True)
    supplied = merged["_merge"] != "left_only"
    total = len(truth) + extra + duplicates
    rates: dict[str, float] = {}
    for column in columns:
        if column not in agent.columns:
            rates[column] = 0.0
            continue
        truth_col = merged[f"{column}_truth"]
        agent_col = merged[f"{column}_agent"]
        hits = _column_matches(truth_col, agent_col, task.tolerance.get(column, 0))
        hits = hits | (truth_col.isna() & agent_col.isna() & supplied)
        matched = int(hits.sum())
        rates[column] = matched / total if total > 0 else 0.0
    return {
        "rates": rates,
        "truth_rows": len(truth),
        "agent_rows": agent_rows,
        "agent_unique_keys": len(agent_keys),
        "agent_keys_in_truth": in_truth,
        "extra_keys": extra,
        "duplicate_rows": duplicates,
    }


def _empty(task: Task, exists: bool, error: str) -> dict[str, Any]:
    return {
        "reward": 0.0, "strict_pass": False, "match_rates": {c: 0.0 for c in task.scored_columns} if exists else {},
        "key_precision": 0.0, "key_recall": 0.0, "key_f1": 0.0, "agent_unique_keys": 0, "extra_keys": 0,
        "duplicate_rows": 0, "errors": [error],
    }


def grade(task: Task, output: Path, truth_csv: Path) -> dict[str, Any]:
    """Reward, match rates, strict verdict and key metrics of one output, as M4Bench reports them."""
    if not output.exists():
        return _empty(task, False, f"output file not found: {output}")
    truth = read_csv(truth_csv)
    try:
        agent = read_csv(output)
    except Exception as exc:  # noqa: BLE001 - any reader failure scores 0, as in M4Bench
        return _empty(task, True, f"CSV read failed: {exc}")
    try:
        result = compare(agent, truth, task)
    except Exception as exc:  # noqa: BLE001 - any comparison failure scores 0, as in M4Bench
        return _empty(task, True, f"Comparison failed: {exc}")
    rates = {c: round(r, 8) for c, r in result["rates"].items()}
    coverage = result["agent_keys_in_truth"] / result["truth_rows"] if result["truth_rows"] else 0.0
    required = task.required_columns or (*task.key_columns, *task.value_columns)
    strict = (
        len(agent) > 0
        and all(c in agent.columns for c in required)
        and coverage >= task.row_coverage_threshold
        and all(r >= task.accuracy_threshold for r in result["rates"].values())
    )
    precision = result["agent_keys_in_truth"] / result["agent_unique_keys"] if result["agent_unique_keys"] else 0.0
    recall = coverage
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {
        "reward": round(sum(rates.values()) / len(rates), 8) if rates else 0.0,
        "strict_pass": bool(strict),
        "match_rates": rates,
        "key_precision": round(precision, 8),
        "key_recall": round(recall, 8),
        "key_f1": round(f1, 8) if not math.isnan(f1) else 0.0,
        "agent_unique_keys": result["agent_unique_keys"],
        "extra_keys": result["extra_keys"],
        "duplicate_rows": result["duplicate_rows"],
        "errors": [],
    }


def export_truth(con: Any, task: Task, out_csv: Path) -> Path:
    """A task's reference as M4Bench writes its ground truth: DuckDB -> pandas, sorted by key, to_csv.

    A path ending in ``.gz`` gets the gzipped CSV M4Bench ships and its harness reads
    (``<task>.csv.gz``, written with mtime 0 so the bytes are reproducible)."""
    catalog = con.execute(
        "SELECT table_catalog FROM information_schema.tables WHERE table_schema = 'reference' AND table_name = ?",
        [task.reference_model]).fetchone()
    if catalog is None:
        raise ValueError(f"reference table {task.reference_model} not found")
    frame = con.execute(f'SELECT * FROM "{catalog[0]}".reference."{task.reference_model}"').df()
    order = [*task.key_columns, *[c for c in frame.columns if c not in task.key_columns]]
    compression = {"method": "gzip", "mtime": 0} if out_csv.suffix == ".gz" else None
    frame.sort_values(order, kind="mergesort", na_position="last").to_csv(out_csv, index=False,
                                                                          compression=compression)
    return out_csv
