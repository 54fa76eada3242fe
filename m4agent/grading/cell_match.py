"""Which cells of an output match the reference, by M4Bench's per-column rule, for showing them.

``m4agent view`` marks each mismatching cell of a run's output. It needs a
verdict per cell, which grading (one SQL pass per batch, ``grade``) does not
keep, so the page applies M4Bench's rule itself, on the two CSVs read as
M4Bench reads them: only empty cells are missing; a key column is compared as
numbers, else as timestamps, else as text; a value column as numbers within
its tolerance when every value of both sides is a number, else as timestamps
within the tolerance in seconds when the reference's first values look like
timestamps, else as text. This module is for display only; scores come from
grading.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

_TEMPORAL = r"\d{4}-\d{2}-\d{2}|T\d{2}:|\d{1,2}:\d{2}"
_SNIFFED_VALUES = 50  # reference values looked at to decide whether a column holds timestamps


def read_csv(path: Path | str) -> pd.DataFrame:
    """A CSV as M4Bench reads it: only empty cells are missing; 'None', 'NA', 'NaN' stay text."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _as_time(values: pd.Series) -> pd.Series:
    with warnings.catch_warnings():  # pandas warns when it falls back to per-value parsing
        warnings.simplefilter("ignore", UserWarning)
        return pd.to_datetime(values, errors="coerce")


def normalise_keys(frame: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """A copy whose key columns are numbers when all parse as numbers, else timestamps when all parse
    as timestamps, else text: how M4Bench makes an output's keys meet the reference's."""
    out = frame.copy()
    for key in keys:
        as_number = pd.to_numeric(out[key], errors="coerce")
        if as_number.notna().all():
            out[key] = as_number
            continue
        as_time = _as_time(out[key])
        out[key] = as_time if as_time.notna().all() else out[key].astype("string")
    return out


def column_matches(truth: pd.Series, agent: pd.Series, tolerance: float) -> pd.Series:
    """Per row, whether the agent's value matches the reference's (rows aligned; a missing value on
    either side is no match, both missing is decided by the caller)."""
    truth_number = pd.to_numeric(truth, errors="coerce")
    agent_number = pd.to_numeric(agent, errors="coerce")
    has_truth = truth.notna()
    both = has_truth & agent.notna()
    if truth_number[has_truth].notna().all() and agent_number[both].notna().all():
        return (truth_number - agent_number).abs() <= float(tolerance or 0)
    first_values = truth[has_truth].astype("string").head(_SNIFFED_VALUES)
    if first_values.str.contains(_TEMPORAL, regex=True, na=False).any():
        truth_time, agent_time = _as_time(truth), _as_time(agent)
        if truth_time[has_truth].notna().all() and agent_time[both].notna().all():
            return (truth_time - agent_time).abs() <= pd.to_timedelta(tolerance or 0, unit="s")
    return truth.astype("string") == agent.astype("string")
