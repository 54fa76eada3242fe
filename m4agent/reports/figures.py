"""The report's figures (matplotlib, PNG and SVG): a forest plot of per-task deltas, a task x condition
heatmap, schema-variant slopes and reward distributions per condition.

Per-task intervals in the forest plot are normal approximations from the cells (the delta's standard
error from each cell's standard deviation and run count, averaged over models); the headline row
carries the percentile bootstrap interval over tasks.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from m4agent.errors import M4AgentError
from m4agent.reports.tables import label, primary

CONDITION_ORDER = ("no-skill", "with-skill", "with-skill-all", "with-skill-rawsql", "with-skill-decoy",
                   "operational-spec")
SCHEMA_ORDER = ("native", "obfuscated", "restructured")


@dataclass
class Figure:
    name: str
    title: str
    caption: str
    png: Path
    svg: Path


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise M4AgentError("figures need matplotlib: `pip install matplotlib` (or give --no-figures)") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, folder: Path, name: str, title: str, caption: str) -> Figure:
    plt = _pyplot()
    png, svg = folder / f"{name}.png", folder / f"{name}.svg"
    fig.savefig(png, dpi=110, bbox_inches="tight")
    fig.savefig(svg, bbox_inches="tight")
    plt.close(fig)
    return Figure(name, title, caption, png, svg)


def _slug(*parts: str) -> str:
    return "_".join(p.replace(":", "-").replace("/", "-").replace(" ", "-").replace(">", "") for p in parts if p)


def _cell_index(report: dict[str, Any]) -> dict[tuple[str, str, str, str, str], dict[str, Any]]:
    return {(c["agent"], c["task"], c["condition"], c["schema"], c["model"]): c for c in report["cells"]}


def _task_interval(comparison: dict[str, Any], cells: dict[tuple[str, str, str, str, str], dict[str, Any]],
                   task: str) -> float:
    """Half-width of a normal 95% interval of a per-task delta (mean over models of cell differences)."""
    variance, models = 0.0, 0
    for model in comparison["models"]:
        base = cells.get((comparison["agent"], task, comparison["baseline"], comparison["baseline_schema"], model))
        treat = cells.get((comparison["agent"], task, comparison["treatment"], comparison["treatment_schema"], model))
        if base is None or treat is None:
            continue
        variance += (base["sd_reward"] ** 2) / base["n"] + (treat["sd_reward"] ** 2) / treat["n"]
        models += 1
    return 1.96 * math.sqrt(variance) / models if models else 0.0


def forest(report: dict[str, Any], comparison: dict[str, Any], folder: Path) -> Figure:
    plt = _pyplot()
    cells = _cell_index(report)
    rows = sorted(comparison["per_task"], key=lambda r: r["delta"])
    height = max(3.0, 0.28 * (len(rows) + 2) + 1.2)
    fig, ax = plt.subplots(figsize=(7.5, height))
    ys = list(range(len(rows)))
    for y, row in zip(ys, rows, strict=True):
        half = _task_interval(comparison, cells, row["task"])
        color = "#1b7837" if row["delta"] > 0 else ("#b2182b" if row["delta"] < 0 else "#555555")
        ax.errorbar(row["delta"], y, xerr=half, fmt="o", color=color, ecolor=color, elinewidth=1.2, capsize=2,
                    markersize=5)
    head_y = len(rows) + 1
    low, high = comparison["ci_low"], comparison["ci_high"]
    if low is not None and high is not None:
        ax.fill_between([low, high], head_y - 0.35, head_y + 0.35, color="#2166ac", alpha=0.35, linewidth=0)
    ax.plot([comparison["delta"]], [head_y], marker="D", color="#2166ac", markersize=8)
    ax.axvline(0, color="#444444", linewidth=0.8)
    ax.set_yticks([*ys, head_y], [r["task"] for r in rows] + ["task-balanced mean"])
    ax.set_xlabel(f"reward delta ({comparison['treatment']} - {comparison['baseline']})")
    ax.set_title(label(comparison), fontsize=10)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    name = _slug("forest", comparison["agent"], comparison["schema"], comparison["baseline"], comparison["treatment"])
    return _save(fig, folder, name, f"Per-task deltas: {label(comparison)}",
                 "Points: per-task delta (mean over models of the cell-mean difference) with a normal 95% interval "
                 "from the cells; diamond and band: task-balanced mean with its percentile bootstrap interval.")


def heatmap(report: dict[str, Any], agent: str, schema: str, folder: Path) -> Figure | None:
    plt = _pyplot()
    by_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in report["cells"]:
        if c["agent"] == agent and c["schema"] == schema:
            by_task[c["task"]][c["condition"]].append(c["mean_reward"])
    conditions = sorted({cond for conds in by_task.values() for cond in conds},
                        key=lambda c: (CONDITION_ORDER.index(c) if c in CONDITION_ORDER else 99, c))
    if not by_task or not conditions:
        return None
    tasks = sorted(by_task)
    grid = [[(sum(by_task[t][c]) / len(by_task[t][c])) if by_task[t].get(c) else math.nan for c in conditions]
            for t in tasks]
    fig, ax = plt.subplots(figsize=(1.4 * len(conditions) + 3.5, 0.3 * len(tasks) + 1.8))
    image = ax.imshow(grid, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(conditions)), conditions, rotation=30, ha="right")
    ax.set_yticks(range(len(tasks)), tasks)
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if not math.isnan(value):
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if value > 0.6 else "white")
    fig.colorbar(image, ax=ax, label="mean reward")
    ax.set_title(f"{agent}: mean reward by task and condition ({schema})", fontsize=10)
    return _save(fig, folder, _slug("heatmap", agent, schema), f"Task x condition: {agent} ({schema})",
                 "Mean over models of each cell's mean reward.")


def slopes(report: dict[str, Any], agent: str, condition: str, folder: Path) -> Figure | None:
    plt = _pyplot()
    by_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in report["cells"]:
        if c["agent"] == agent and c["condition"] == condition:
            by_task[c["task"]][c["schema"]].append(c["mean_reward"])
    schemas = [s for s in SCHEMA_ORDER if any(s in v for v in by_task.values())]
    tasks = [t for t, v in sorted(by_task.items()) if "native" in v and len(v) > 1]
    if len(schemas) < 2 or not tasks:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    colors = plt.get_cmap("tab20")
    for i, task in enumerate(tasks):
        xs = [j for j, s in enumerate(schemas) if s in by_task[task]]
        ys = [sum(by_task[task][schemas[j]]) / len(by_task[task][schemas[j]]) for j in xs]
        ax.plot(xs, ys, marker="o", color=colors(i % 20), label=task, linewidth=1.4)
    ax.set_xticks(range(len(schemas)), schemas)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("mean reward")
    ax.set_title(f"{agent}, {condition}: schema variants", fontsize=10)
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    return _save(fig, folder, _slug("slopes", agent, condition), f"Schema variants: {agent}, {condition}",
                 "Mean reward of each task on the native schema and its variants (tasks with a native cell).")


def distributions(report: dict[str, Any], agent: str, schema: str, folder: Path) -> Figure | None:
    plt = _pyplot()
    by_condition: dict[str, list[float]] = defaultdict(list)
    for run in report.get("runs", []):
        if run["agent"] == agent and run["schema"] == schema and run["valid"]:
            by_condition[run["condition"]].append(float(run["reward"]))
    conditions = sorted(by_condition, key=lambda c: (CONDITION_ORDER.index(c) if c in CONDITION_ORDER else 99, c))
    if not conditions:
        return None
    fig, ax = plt.subplots(figsize=(1.3 * len(conditions) + 3, 4.2))
    data = [by_condition[c] for c in conditions]
    parts = ax.boxplot(data, patch_artist=True, widths=0.55, showfliers=False)
    palette = plt.get_cmap("Set2")
    for i, box in enumerate(parts["boxes"]):
        box.set_facecolor(palette(i % 8))
    for i, values in enumerate(data, start=1):
        jitter = [i + 0.18 * (((k * 7919) % 101) / 101 - 0.5) for k in range(len(values))]
        ax.scatter(jitter, values, s=8, color="#333333", alpha=0.5, zorder=3)
    ax.set_xticks(range(1, len(conditions) + 1), [f"{c}\n(n={len(by_condition[c])})" for c in conditions],
                  fontsize=8)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("reward")
    ax.set_title(f"{agent}: reward per run by condition ({schema})", fontsize=10)
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    return _save(fig, folder, _slug("rewards", agent, schema), f"Reward distributions: {agent} ({schema})",
                 "Each valid run's reward; boxes: quartiles and median.")


def departures(report: dict[str, Any], folder: Path) -> Figure | None:
    """Runs each convention reading explains best, one bar per agent and condition (``m4agent explain``)."""
    rows = [r for r in report.get("departures", []) if r["runs_with_mismatches"] and r["runs_best"]]
    if not rows:
        return None
    plt = _pyplot()
    readings = sorted({r["label"] or r["reading"] for r in rows})
    groups = sorted({(r["agent"], r["condition"]) for r in rows},
                    key=lambda g: (g[0], CONDITION_ORDER.index(g[1]) if g[1] in CONDITION_ORDER else 9, g[1]))
    height = 0.8 / len(groups)
    fig, ax = plt.subplots(figsize=(8, 0.6 + 0.5 * len(readings) * max(1, len(groups) / 2)))
    for index, (agent, condition) in enumerate(groups):
        counts = {r["label"] or r["reading"]: r["runs_best"] for r in rows
                  if (r["agent"], r["condition"]) == (agent, condition)}
        ax.barh([y + index * height for y in range(len(readings))], [counts.get(name, 0) for name in readings],
                height=height, label=f"{agent} {condition}")
    ax.set_yticks([y + 0.4 - height / 2 for y in range(len(readings))], readings)
    ax.set_xlabel("runs it explains best")
    ax.legend(fontsize=8)
    return _save(fig, folder, "departures", "Conventions the runs departed from",
                 "Runs whose mismatches each alternative reading of a documented convention explains best, per "
                 "agent and condition (m4agent explain; docs/explain.md).")


def write_figures(report: dict[str, Any], folder: Path) -> list[Figure]:
    folder.mkdir(parents=True, exist_ok=True)
    made: list[Figure | None] = [forest(report, c, folder) for c in primary(report) if c["per_task"]]
    pairs = sorted({(c["agent"], c["schema"]) for c in report["cells"]},
                   key=lambda p: (p[0], SCHEMA_ORDER.index(p[1]) if p[1] in SCHEMA_ORDER else 9, p[1]))
    for agent, schema in pairs:
        made.append(heatmap(report, agent, schema, folder))
        made.append(distributions(report, agent, schema, folder))
    for agent, condition in sorted({(c["agent"], c["condition"]) for c in report["cells"]}):
        made.append(slopes(report, agent, condition, folder))
    made.append(departures(report, folder))
    return [f for f in made if f is not None]
