"""The paper's estimands over a set of observations: cells, per-task deltas, comparisons, controls.

- A **cell** is one (agent, task, condition, schema, model): its runs' mean reward and the rest.
- A **comparison** sets a treatment arm (condition, schema) against a baseline arm for one agent.
  The **per-task delta** is the mean over models of the cell-mean difference (treatment minus
  baseline), over the (task, model) pairs where both cells exist. The **headline** is the
  task-balanced mean of the per-task deltas, with a percentile bootstrap interval over tasks and a
  two-sided sign-flip p-value; tasks improving / declining count per-task deltas above / below 0.
  Family sensitivity: a family-cluster bootstrap (resample families, pool their tasks) and a
  family-balanced bootstrap (resample family means). Key F1 and ordered-value nMAE deltas are
  formed the same way from cell means (nMAE improves when it falls).
- **Controls** match a control condition with no-skill and with-skill on the same (task, model).
"""

from __future__ import annotations

import functools
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from m4agent.reports import resampling
from m4agent.reports.resampling import mean
from m4agent.reports.run_records import Observation

NO_SKILL = "no-skill"
WITH_SKILL = "with-skill"
CONTROL_CONDITIONS = ("with-skill-rawsql", "with-skill-decoy", "operational-spec")
ALL_SKILLS = "with-skill-all"
NATIVE = "native"
SCHEMA_VARIANTS = ("obfuscated", "restructured")

CellKey = tuple[str, str, str, str, str]  # agent, task, condition, schema, model


@dataclass(frozen=True)
class Parameters:
    """Repetitions and seeds; the defaults are the paper's."""

    bootstrap_reps: int = resampling.BOOTSTRAP_REPS
    sign_flip_reps: int = resampling.SIGN_FLIP_REPS
    seed: int = resampling.SEED
    sign_flip_seed: int = resampling.SEED
    family_seed: int = resampling.FAMILY_SEED


@dataclass(frozen=True)
class Arm:
    condition: str
    schema: str = NATIVE


@dataclass
class Cell:
    """One (agent, task, condition, schema, model) and what its runs give."""

    agent: str
    task: str
    condition: str
    schema: str
    model: str
    n: int
    mean_reward: float
    sd_reward: float
    median_reward: float
    min_reward: float
    max_reward: float
    strict_passes: int
    mean_key_f1: float
    mean_key_precision: float
    mean_nmae: float
    nmae_columns: int
    sum_extra_keys: int

    def as_row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _finite(values: Iterable[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and not math.isnan(float(v))]


def cells(observations: Iterable[Observation]) -> dict[CellKey, Cell]:
    grouped: dict[CellKey, list[Observation]] = defaultdict(list)
    for obs in observations:
        grouped[(obs.agent, obs.task, obs.condition, obs.schema, obs.model)].append(obs)
    out = {}
    for key in sorted(grouped):
        group = grouped[key]
        rewards = [o.reward for o in group]
        out[key] = Cell(
            *key, n=len(group), mean_reward=mean(rewards),
            sd_reward=statistics.stdev(rewards) if len(rewards) > 1 else 0.0,
            median_reward=statistics.median(rewards), min_reward=min(rewards), max_reward=max(rewards),
            strict_passes=sum(o.strict_pass for o in group), mean_key_f1=mean(_finite(o.key_f1 for o in group)),
            mean_key_precision=mean(_finite(o.key_precision for o in group)),
            mean_nmae=mean(_finite(o.nmae for o in group)), nmae_columns=max(o.nmae_columns for o in group),
            sum_extra_keys=sum(o.extra_keys for o in group))
    return out


@functools.lru_cache(maxsize=256)
def _bootstrap(values: tuple[float, ...], reps: int, seed: int) -> tuple[float, float]:
    return resampling.bootstrap_ci(values, reps, seed)


@functools.lru_cache(maxsize=256)
def _sign_flip(values: tuple[float, ...], reps: int, seed: int) -> float:
    return resampling.sign_flip_p(values, reps, seed)


def _nan_to_none(value: float) -> float | None:
    return None if value is None or math.isnan(value) else value


def _summary(values: Sequence[float], params: Parameters, lower_is_better: bool = False,
             with_p: bool = False) -> dict[str, Any]:
    """Mean, bootstrap interval and counts of per-task values (tasks in sorted order)."""
    low, high = _bootstrap(tuple(values), params.bootstrap_reps, params.seed) if values else (math.nan, math.nan)
    better = sum((v < 0) if lower_is_better else (v > 0) for v in values)
    worse = sum((v > 0) if lower_is_better else (v < 0) for v in values)
    out = {"delta": _nan_to_none(mean(values)), "ci_low": _nan_to_none(low), "ci_high": _nan_to_none(high),
           "tasks": len(values), "tasks_improved": better, "tasks_declined": worse}
    if with_p:
        out["p_sign_flip"] = _nan_to_none(_sign_flip(tuple(values), params.sign_flip_reps, params.sign_flip_seed)
                                          if values else math.nan)
    return out


def arm_label(baseline: Arm, treatment: Arm, arm: Arm) -> str:
    """How an arm is named in a comparison: its condition, or its schema when the conditions agree."""
    return arm.schema if baseline.condition == treatment.condition else arm.condition


def compare(table: dict[CellKey, Cell], agent: str, baseline: Arm, treatment: Arm, params: Parameters,
            families: dict[str, str], modes: dict[str, str]) -> dict[str, Any] | None:
    """One comparison of two arms for one agent; None when no (task, model) has both."""
    pairs: dict[str, dict[str, tuple[Cell, Cell]]] = defaultdict(dict)
    for (a, task, condition, schema, model), cell in table.items():
        if a != agent or (condition, schema) != (treatment.condition, treatment.schema):
            continue
        base = table.get((agent, task, baseline.condition, baseline.schema, model))
        if base is not None:
            pairs[task][model] = (base, cell)
    if not pairs:
        return None
    tasks = sorted(pairs)
    models = sorted({model for by_model in pairs.values() for model in by_model})
    per_task = []
    for task in tasks:
        by_model = pairs[task]
        deltas = {m: t.mean_reward - b.mean_reward for m, (b, t) in sorted(by_model.items())}
        f1 = [(b.mean_key_f1, t.mean_key_f1) for b, t in by_model.values()
              if not (math.isnan(b.mean_key_f1) or math.isnan(t.mean_key_f1))]
        nm = [(b.mean_nmae, t.mean_nmae) for b, t in by_model.values()
              if not (math.isnan(b.mean_nmae) or math.isnan(t.mean_nmae))]
        per_task.append({
            "task": task, "family": families.get(task, ""), "mode": modes.get(task, ""),
            "baseline_mean": mean([b.mean_reward for b, _ in by_model.values()]),
            "treatment_mean": mean([t.mean_reward for _, t in by_model.values()]),
            "delta": mean(list(deltas.values())), "by_model": deltas,
            "key_f1_baseline": _nan_to_none(mean([b for b, _ in f1])),
            "key_f1_treatment": _nan_to_none(mean([t for _, t in f1])),
            "key_f1_delta": _nan_to_none(mean([t - b for b, t in f1])),
            "nmae_baseline": _nan_to_none(mean([b for b, _ in nm])),
            "nmae_treatment": _nan_to_none(mean([t for _, t in nm])),
            "nmae_delta": _nan_to_none(mean([t - b for b, t in nm])),
            "nmae_columns": max(t.nmae_columns for _, t in by_model.values()),
            "baseline_runs": sum(b.n for b, _ in by_model.values()),
            "treatment_runs": sum(t.n for _, t in by_model.values()),
        })
    values = [row["delta"] for row in per_task]
    head = _summary(values, params, with_p=True)
    clusters: dict[str, list[float]] = defaultdict(list)
    for row in per_task:
        clusters[row["family"] or row["task"]].append(row["delta"])
    cluster_ci = resampling.cluster_bootstrap_ci(clusters, params.bootstrap_reps, params.family_seed)
    balanced_ci = resampling.family_balanced_ci(clusters, params.bootstrap_reps, params.family_seed)
    by_model_out = {}
    for model in models:
        rows = [(task, pairs[task][model]) for task in tasks if model in pairs[task]]
        model_values = [t.mean_reward - b.mean_reward for _, (b, t) in rows]
        by_model_out[model] = {
            "baseline_mean": sum(b.mean_reward * b.n for _, (b, _t) in rows) / sum(b.n for _, (b, _t) in rows),
            "treatment_mean": sum(t.mean_reward * t.n for _, (_b, t) in rows) / sum(t.n for _, (_b, t) in rows),
            **_summary(model_values, params)}
    by_mode = {}
    for mode in sorted({row["mode"] for row in per_task}):
        mode_rows = [row for row in per_task if row["mode"] == mode]
        by_mode[mode] = {
            **_summary([row["delta"] for row in mode_rows], params),
            "by_model": {model: _summary([row["by_model"][model] for row in mode_rows if model in row["by_model"]],
                                         params) for model in models}}
    f1_values = [row["key_f1_delta"] for row in per_task if row["key_f1_delta"] is not None]
    nmae_values = [row["nmae_delta"] for row in per_task if row["nmae_delta"] is not None]
    f1 = _summary(f1_values, params)
    nm = _summary(nmae_values, params, lower_is_better=True)
    base_label, treat_label = arm_label(baseline, treatment, baseline), arm_label(baseline, treatment, treatment)
    base_cells = [b for by_model in pairs.values() for b, _ in by_model.values()]
    treat_cells = [t for by_model in pairs.values() for _, t in by_model.values()]
    return {
        "agent": agent, "baseline": baseline.condition, "treatment": treatment.condition,
        "schema": treatment.schema if baseline.schema == treatment.schema else f"{baseline.schema}->{treatment.schema}",
        "baseline_schema": baseline.schema, "treatment_schema": treatment.schema,
        "kind": "condition" if baseline.schema == treatment.schema else "schema",
        "models": models, "tasks": len(tasks),
        "baseline_mean": mean([row["baseline_mean"] for row in per_task]),
        "treatment_mean": mean([row["treatment_mean"] for row in per_task]),
        "delta": head["delta"], "ci_low": head["ci_low"], "ci_high": head["ci_high"],
        "p_sign_flip": head["p_sign_flip"], "tasks_improved": head["tasks_improved"],
        "tasks_declined": head["tasks_declined"],
        "tasks_unchanged": len(values) - head["tasks_improved"] - head["tasks_declined"],
        "strict_pass": {base_label: [sum(c.strict_passes for c in base_cells), sum(c.n for c in base_cells)],
                        treat_label: [sum(c.strict_passes for c in treat_cells), sum(c.n for c in treat_cells)]},
        "key_f1_baseline": _nan_to_none(mean(_finite(row["key_f1_baseline"] for row in per_task))),
        "key_f1_treatment": _nan_to_none(mean(_finite(row["key_f1_treatment"] for row in per_task))),
        "key_f1_delta": f1["delta"], "key_f1_ci": [f1["ci_low"], f1["ci_high"]],
        "key_f1_tasks": f1["tasks"], "key_f1_tasks_improved": f1["tasks_improved"],
        "nmae_baseline": _nan_to_none(mean(_finite(row["nmae_baseline"] for row in per_task))),
        "nmae_treatment": _nan_to_none(mean(_finite(row["nmae_treatment"] for row in per_task))),
        "nmae_delta": nm["delta"], "nmae_ci": [nm["ci_low"], nm["ci_high"]],
        "nmae_tasks": nm["tasks"], "nmae_tasks_improved": nm["tasks_improved"],
        "family": {"families": len(clusters), "cluster_ci": [_nan_to_none(cluster_ci[0]), _nan_to_none(cluster_ci[1])],
                   "balanced_mean": mean([mean(v) for v in clusters.values()]),
                   "balanced_ci": [_nan_to_none(balanced_ci[0]), _nan_to_none(balanced_ci[1])]},
        "by_model": by_model_out, "by_mode": by_mode, "per_task": per_task,
    }


def planned_comparisons(table: dict[CellKey, Cell]) -> list[tuple[str, Arm, Arm]]:
    """Every comparison the data supports, primary first: per agent and schema, no-skill against
    with-skill; each control against no-skill and with-skill against each control; all skills against
    the targeted skill; any other condition against no-skill; then each schema variant against native
    for every condition."""
    present: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for agent, _task, condition, schema, _model in table:
        present[agent].add((condition, schema))
    planned: list[tuple[str, Arm, Arm]] = []
    for agent in sorted(present):
        arms = present[agent]
        schemas = sorted({s for _, s in arms}, key=lambda s: (s != NATIVE, s))
        conditions = sorted({c for c, _ in arms})
        for schema in schemas:
            pairs = [(NO_SKILL, WITH_SKILL)]
            for control in CONTROL_CONDITIONS:
                pairs += [(NO_SKILL, control), (control, WITH_SKILL)]
            pairs.append((WITH_SKILL, ALL_SKILLS))
            known = {NO_SKILL, WITH_SKILL, ALL_SKILLS, *CONTROL_CONDITIONS}
            pairs += [(NO_SKILL, other) for other in conditions if other not in known]
            for base, treat in pairs:
                if (base, schema) in arms and (treat, schema) in arms:
                    planned.append((agent, Arm(base, schema), Arm(treat, schema)))
        for condition in conditions:
            for schema in [s for s in schemas if s != NATIVE]:
                if (condition, NATIVE) in arms and (condition, schema) in arms:
                    planned.append((agent, Arm(condition, NATIVE), Arm(condition, schema)))
    return planned


def controls(table: dict[CellKey, Cell]) -> list[dict[str, Any]]:
    """Each control condition matched with no-skill and with-skill on the same (task, model), native."""
    out = []
    for (agent, task, condition, schema, model), cell in table.items():
        if schema != NATIVE or condition not in (*CONTROL_CONDITIONS, ALL_SKILLS):
            continue
        no = table.get((agent, task, NO_SKILL, NATIVE, model))
        targeted = table.get((agent, task, WITH_SKILL, NATIVE, model))
        if no is None or targeted is None:
            continue
        out.append({"agent": agent, "condition": condition, "task": task, "model": model,
                    "no_skill_mean": no.mean_reward, "with_skill_mean": targeted.mean_reward,
                    "control_mean": cell.mean_reward,
                    "control_minus_no_skill": cell.mean_reward - no.mean_reward,
                    "control_minus_with_skill": cell.mean_reward - targeted.mean_reward, "control_n": cell.n})
    return out


def control_summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per agent and control: means over its matched (task, model) rows, as the paper's table."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[(row["agent"], row["condition"])].append(row)
    out = []
    for (agent, condition), group in sorted(grouped.items()):
        out.append({"agent": agent, "condition": condition, "tasks": len({r["task"] for r in group}),
                    "pairs": len(group),
                    **{name: mean([r[name] for r in group]) for name in (
                        "no_skill_mean", "with_skill_mean", "control_mean", "control_minus_with_skill",
                        "control_minus_no_skill")}})
    return out


def condition_summary(table: dict[CellKey, Cell]) -> list[dict[str, Any]]:
    """Per agent, schema and condition: cells, runs, strict passes, mean reward, key F1, key precision
    and nMAE over cells, extra keys."""
    grouped: dict[tuple[str, str, str], list[Cell]] = defaultdict(list)
    for (agent, _task, condition, schema, _model), cell in table.items():
        grouped[(agent, schema, condition)].append(cell)
    out = []
    for (agent, schema, condition), group in sorted(grouped.items()):
        runs = sum(c.n for c in group)
        out.append({"agent": agent, "schema": schema, "condition": condition, "cells": len(group), "runs": runs,
                    "tasks": len({c.task for c in group}),
                    "mean_reward": sum(c.mean_reward * c.n for c in group) / runs,
                    "strict_passes": sum(c.strict_passes for c in group),
                    "mean_key_f1": _nan_to_none(mean(_finite(c.mean_key_f1 for c in group))),
                    "mean_key_precision": _nan_to_none(mean(_finite(c.mean_key_precision for c in group))),
                    "mean_nmae": _nan_to_none(mean(_finite(c.mean_nmae for c in group))),
                    "sum_extra_keys": sum(c.sum_extra_keys for c in group)})
    return out
