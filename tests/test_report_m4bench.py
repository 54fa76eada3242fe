"""`m4agent report` on M4Bench's published run tables reproduces the paper's numbers.

Expected values are those of the tables in M4Bench's `benchmark/release/v1/tables/` (named in each
test); the run tables are shipped as fixtures in `tests/fixtures/m4bench_release/` with their notice.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from m4agent.reports import report, resampling
from m4agent.reports.estimands import Parameters

RELEASE = Path(__file__).parent / "fixtures" / "m4bench_release"
CODEX = RELEASE / "final_codex_runs.csv"


def r3(value: float) -> float:
    return round(value + 0.0, 3)


def _comparison(built: dict[str, Any], baseline: str, treatment: str, schema: str = "native") -> dict[str, Any]:
    [found] = [c for c in built["comparisons"] if (c["baseline"], c["treatment"], c["schema"]) ==
               (baseline, treatment, schema)]
    return found


@pytest.fixture(scope="module")
def codex() -> dict[str, Any]:
    return report.build([CODEX])


@pytest.fixture(scope="module")
def headline(codex: dict[str, Any]) -> dict[str, Any]:
    return _comparison(codex, "no-skill", "with-skill")


def test_codex_headline_delta_and_interval_are_the_papers(headline: dict[str, Any]) -> None:
    # codex_native_skill_effect.tex: Reward / task-balanced 0.703 0.839 0.136 [0.085, 0.191] 26/28
    assert (r3(headline["baseline_mean"]), r3(headline["treatment_mean"])) == (0.703, 0.839)
    assert (r3(headline["delta"]), r3(headline["ci_low"]), r3(headline["ci_high"])) == (0.136, 0.085, 0.191)
    assert (headline["tasks_improved"], headline["tasks"]) == (26, 28)


def test_codex_sign_flip_p_is_below_one_in_ten_thousand(headline: dict[str, Any]) -> None:
    assert headline["p_sign_flip"] < 0.0001


def test_codex_strict_passes_are_13_and_25_of_280(headline: dict[str, Any]) -> None:
    assert headline["strict_pass"] == {"no-skill": [13, 280], "with-skill": [25, 280]}


def test_codex_key_f1_and_nmae_deltas_are_the_papers(headline: dict[str, Any]) -> None:
    # Key F1 / task-balanced 0.962 0.965 0.003 6/28; Ordered nMAE 0.116 0.060 -0.056 23/26
    assert (r3(headline["key_f1_baseline"]), r3(headline["key_f1_treatment"]), r3(headline["key_f1_delta"])) == \
        (0.962, 0.965, 0.003)
    assert (headline["key_f1_tasks_improved"], headline["key_f1_tasks"]) == (6, 28)
    assert (r3(headline["nmae_baseline"]), r3(headline["nmae_treatment"]), r3(headline["nmae_delta"])) == \
        (0.116, 0.060, -0.056)
    assert (headline["nmae_tasks_improved"], headline["nmae_tasks"]) == (23, 26)


def test_codex_per_model_rows_are_the_papers(headline: dict[str, Any]) -> None:
    got = {m: (r3(v["baseline_mean"]), r3(v["treatment_mean"]), r3(v["delta"]), v["tasks_improved"])
           for m, v in headline["by_model"].items()}
    assert got == {"gpt-5.4-mini": (0.639, 0.802, 0.162, 26), "gpt-5.5": (0.767, 0.876, 0.109, 24)}


def test_codex_family_sensitivity_is_the_papers(headline: dict[str, Any]) -> None:
    # codex_family_sensitivity.tex
    family = headline["family"]
    assert family["families"] == 15
    assert [r3(x) for x in family["cluster_ci"]] == [0.065, 0.207]
    assert (r3(family["balanced_mean"]), *[r3(x) for x in family["balanced_ci"]]) == (0.120, 0.057, 0.190)


def test_codex_mode_effects_are_the_papers(headline: dict[str, Any]) -> None:
    # codex_mode_skill_effect.tex
    modes = headline["by_mode"]
    assert {k: (v["tasks"], r3(v["delta"]), v["tasks_improved"]) for k, v in modes.items()} == \
        {"standard": (11, 0.154, 10), "raw": (17, 0.124, 16)}
    assert {(mode, m): (r3(v["delta"]), v["tasks_improved"]) for mode in modes
            for m, v in modes[mode]["by_model"].items()} == {
        ("standard", "gpt-5.4-mini"): (0.203, 10), ("raw", "gpt-5.4-mini"): (0.136, 16),
        ("standard", "gpt-5.5"): (0.105, 9), ("raw", "gpt-5.5"): (0.112, 15)}


def test_codex_gains_declines_and_secondary_by_task_are_the_papers(headline: dict[str, Any]) -> None:
    # codex_skill_gains.tex, codex_skill_declines.tex, codex_secondary_diagnostics_by_task.tex
    rows = sorted(headline["per_task"], key=lambda r: r["delta"], reverse=True)
    assert [(r["task"], r3(r["delta"])) for r in rows[:3]] == [
        ("mimic-urine-output-rate-raw", 0.471), ("mimic-urine-output-rate", 0.460), ("mimic-meld-24h", 0.354)]
    assert [(r["task"], r3(r["delta"])) for r in rows[-2:]] == [("mimic-kdigo-48h", -0.002),
                                                               ("mimic-kdigo-48h-raw", -0.040)]
    by_task = {r["task"]: r for r in rows}
    assert (r3(by_task["mimic-sepsis3-raw"]["key_f1_delta"]), r3(by_task["mimic-sepsis3-raw"]["nmae_delta"]),
            by_task["mimic-sepsis3-raw"]["nmae_columns"]) == (-0.089, -0.102, 8)
    assert by_task["mimic-ventilation"]["nmae_delta"] is None


def test_codex_matched_controls_are_the_papers(codex: dict[str, Any]) -> None:
    # codex_matched_controls.tex
    got = {c["condition"]: (c["tasks"], *[r3(c[k]) for k in ("no_skill_mean", "with_skill_mean", "control_mean",
                                                              "control_minus_with_skill", "control_minus_no_skill")])
           for c in codex["controls"]}
    assert got == {"with-skill-rawsql": (10, 0.553, 0.833, 0.837, 0.003, 0.283),
                   "with-skill-decoy": (10, 0.553, 0.833, 0.554, -0.280, 0.000)}


def test_codex_key_precision_table_is_the_papers(codex: dict[str, Any]) -> None:
    # codex_key_precision.tex
    got = {c["condition"]: (c["cells"], r3(c["mean_key_f1"]), r3(c["mean_key_precision"]), c["sum_extra_keys"])
           for c in codex["conditions"] if c["condition"] in ("no-skill", "with-skill")}
    assert got == {"no-skill": (56, 0.962, 0.967, 2384458), "with-skill": (56, 0.965, 0.976, 2087534)}
    assert [c["sum_extra_keys"] for c in codex["worst_cells"]] == [555030, 525311, 505933, 459225, 384994]


def test_codex_integrity_counts_are_the_papers(codex: dict[str, Any]) -> None:
    # codex_integrity.tex
    integrity = codex["validity"]["integrity"]
    assert {k: integrity[k] for k in ("runs", "cells", "publishable_failures", "isolation_failures",
                                      "filesystem_canary_failures", "contamination_lint_failures",
                                      "nonzero_agent_exits", "missing_rewards", "strict_passes",
                                      "diagnostic_failures")} == {
        "runs": 760, "cells": 152, "publishable_failures": 0, "isolation_failures": 0,
        "filesystem_canary_failures": 0, "contamination_lint_failures": 0, "nonzero_agent_exits": 3,
        "missing_rewards": 0, "strict_passes": 87, "diagnostic_failures": 670}


def test_published_tables_have_no_plan(codex: dict[str, Any]) -> None:
    assert codex["validity"]["completeness"]["plan"] is False


def test_claude_sentinel_effect_is_the_papers() -> None:
    # claude_native_skill_effect.tex and claude_task_deltas.tex
    c = _comparison(report.build([RELEASE / "final_claude_runs.csv"]), "no-skill", "with-skill")
    assert (r3(c["delta"]), r3(c["ci_low"]), r3(c["ci_high"]), c["tasks_improved"], c["tasks"]) == \
        (0.166, 0.085, 0.259, 8, 8)
    assert {m: (r3(v["baseline_mean"]), r3(v["treatment_mean"]), r3(v["delta"]), v["tasks_improved"])
            for m, v in c["by_model"].items()} == {"opus": (0.738, 0.843, 0.106, 6), "sonnet": (0.592, 0.817, 0.226, 8)}
    top = max(c["per_task"], key=lambda r: r["delta"])
    assert (top["task"], r3(top["by_model"]["opus"]), r3(top["by_model"]["sonnet"]), r3(top["delta"])) == \
        ("mimic-urine-output-rate-raw", 0.391, 0.484, 0.438)


def test_oss_effect_with_its_seed_is_the_papers() -> None:
    # oss_native_skill_effect.tex (bootstrap seed 20260505), oss_integrity.tex, oss_schema_probe.tex
    built = report.build([RELEASE / "final_oss_runs.csv"], Parameters(seed=20260505))
    c = _comparison(built, "no-skill", "with-skill")
    assert (r3(c["baseline_mean"]), r3(c["treatment_mean"]), r3(c["delta"]), r3(c["ci_low"]), r3(c["ci_high"]),
            c["tasks_improved"]) == (0.085, 0.094, 0.008, -0.072, 0.088, 3)
    integrity = built["validity"]["integrity"]
    assert (integrity["runs"], integrity["publishable_failures"], integrity["nonzero_agent_exits"],
            integrity["diagnostic_failures"], integrity["cells"]) == (110, 110, 2, 30, 22)
    sofa = _comparison(built, "no-skill", "no-skill", "native->obfuscated")
    assert (r3(sofa["baseline_mean"]), r3(sofa["treatment_mean"])) == (0.124, 0.000)


@pytest.fixture(scope="module")
def followup() -> dict[str, Any]:
    return report.build([CODEX, RELEASE / "followup_canonical_runs.csv"],
                        Parameters(seed=20260506, sign_flip_seed=20260506))


def test_operational_spec_comparisons_are_the_papers(followup: dict[str, Any]) -> None:
    # codex_operational_spec_control.tex (follow-up seed 20260506)
    spec = _comparison(followup, "no-skill", "operational-spec")
    assert (spec["tasks"], r3(spec["baseline_mean"]), r3(spec["treatment_mean"]), r3(spec["delta"])) == \
        (8, 0.606, 0.767, 0.162)
    targeted = _comparison(followup, "operational-spec", "with-skill")
    assert (r3(targeted["treatment_mean"]), r3(targeted["delta"]), r3(targeted["ci_low"]),
            r3(targeted["ci_high"])) == (0.792, 0.024, -0.034, 0.099)
    by_task = {r["task"]: r3(r["delta"]) for r in spec["per_task"]}
    assert (by_task["mimic-urine-output-rate-raw"], by_task["mimic-ventilation"]) == (0.430, -0.008)


def test_operational_spec_interval_differs_only_by_the_papers_task_order(followup: dict[str, Any]) -> None:
    # The paper's [0.072, 0.260] resampled its 8 sentinel tasks in its own listed order; ours are sorted
    # by name ([0.073, 0.259]). The same values in the paper's order give the paper's interval.
    spec = _comparison(followup, "no-skill", "operational-spec")
    assert (r3(spec["ci_low"]), r3(spec["ci_high"])) == (0.073, 0.259)
    papers_order = ["mimic-urine-output-rate-raw", "mimic-ventilation", "mimic-creatinine-baseline-raw",
                    "mimic-suspicion-infection", "mimic-vasopressor-equivalents-raw", "mimic-oasis-24h",
                    "mimic-sepsis3-raw", "mimic-sofa-24h-raw"]
    by_task = {r["task"]: r["delta"] for r in spec["per_task"]}
    low, high = resampling.bootstrap_ci([by_task[t] for t in papers_order], seed=20260506)
    assert (r3(low), r3(high)) == (0.072, 0.260)


def test_followup_integrity_counts_are_the_papers() -> None:
    # codex_followup_integrity.tex: 340 canonical runs, 3 nonzero exits, 22 fully passing
    integrity = report.build([RELEASE / "followup_canonical_runs.csv"])["validity"]["integrity"]
    assert (integrity["runs"], integrity["nonzero_agent_exits"], integrity["strict_passes"]) == (340, 3, 22)


def test_report_command_prints_the_comparisons_as_json(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "m4agent.cli", "report", str(CODEX), "--out", str(tmp_path / "r"),
                           "--no-figures", "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    [first, *_] = json.loads(done.stdout)["comparisons"]
    assert {k: first[k] for k in ("baseline", "treatment", "schema", "agent", "tasks", "tasks_improved",
                                  "strict_pass")} == {
        "baseline": "no-skill", "treatment": "with-skill", "schema": "native", "agent": "codex", "tasks": 28,
        "tasks_improved": 26, "strict_pass": {"no-skill": [13, 280], "with-skill": [25, 280]}}
    assert {"delta", "ci_low", "ci_high", "p_sign_flip", "key_f1_delta", "nmae_delta"} <= set(first)
    for name in ("report.json", "report.html", "tables.md", "runs.csv", "cells.csv", "comparisons.csv",
                 "task_deltas.csv", "controls.csv", "conditions.csv"):
        assert (tmp_path / "r" / name).is_file(), name


def test_report_of_a_missing_path_fails_with_what_to_give(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "m4agent.cli", "report", str(tmp_path / "nowhere")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "does not exist; give a campaign folder" in done.stderr
