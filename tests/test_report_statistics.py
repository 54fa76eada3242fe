"""Statistics of `m4agent report`: the random stream, bootstraps, the sign-flip test and the estimands,
against Python's own `random`, scipy, and small cases computed by hand."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats

from m4agent.reports import estimands, resampling, run_records
from m4agent.reports.estimands import Arm, Parameters
from m4agent.reports.run_records import Observation, RunRecord


@pytest.mark.parametrize("seed", [20260504, 1, 0, 2**40 + 5])
@pytest.mark.parametrize("n", [1, 2, 3, 15, 28, 1000])
def test_draws_are_exactly_pythons_randrange_stream_across_calls(seed: int, n: int) -> None:
    ours = resampling.PythonDraws(seed)
    theirs = random.Random(seed)
    got = [*ours.randbelow(n, 997), *ours.randbelow(n, 5), *ours.randbelow(7, 300)]
    expected = [theirs.randrange(n) for _ in range(1002)] + [theirs.randrange(7) for _ in range(300)]
    assert [int(x) for x in got] == expected


def _python_bootstrap(values: list[float], reps: int, seed: int) -> tuple[float, float]:
    """The definition, written plainly: resample with Python's random, take the 2.5/97.5 order statistics."""
    rng = random.Random(seed)
    n = len(values)
    draws = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(reps))
    return draws[int(0.025 * reps)], draws[int(0.975 * reps)]


def test_bootstrap_interval_equals_the_plain_python_definition() -> None:
    values = [0.47, -0.04, 0.12, 0.0, 0.29, 0.05, 0.33, -0.2, 0.18]
    low, high = resampling.bootstrap_ci(values, reps=3000, seed=20260504)
    ref_low, ref_high = _python_bootstrap(values, 3000, 20260504)
    assert low == pytest.approx(ref_low, abs=1e-12) and high == pytest.approx(ref_high, abs=1e-12)


def test_bootstrap_interval_agrees_with_scipy_percentile_bootstrap() -> None:
    values = list(np.random.default_rng(3).normal(0.1, 0.2, size=28))
    low, high = resampling.bootstrap_ci(values)
    ref = stats.bootstrap((values,), np.mean, n_resamples=20000, method="percentile",
                          rng=np.random.default_rng(5)).confidence_interval
    assert low == pytest.approx(ref.low, abs=0.01) and high == pytest.approx(ref.high, abs=0.01)


def test_bootstrap_of_a_constant_is_that_constant() -> None:
    assert resampling.bootstrap_ci([0.25] * 6, reps=500) == (0.25, 0.25)


def test_sign_flip_p_agrees_with_scipys_exact_permutation_test() -> None:
    values = [0.31, 0.12, -0.05, 0.22, 0.4, 0.08, -0.11, 0.27, 0.15, 0.02]
    exact = stats.permutation_test((values,), np.mean, permutation_type="samples", alternative="two-sided",
                                   n_resamples=np.inf).pvalue
    assert resampling.sign_flip_p(values) == pytest.approx(exact, abs=0.004)


@pytest.mark.parametrize(("values", "exact"), [([1.0, 1.0], 0.5), ([1.0, 1.0, 1.0], 0.25), ([2.0, -2.0], 1.0)])
def test_sign_flip_p_of_hand_computed_cases(values: list[float], exact: float) -> None:
    # [1, 1]: of 4 sign patterns, 2 reach |mean| >= 1; [1, 1, 1]: 2 of 8; [2, -2]: all 4 (|mean| >= 0)
    assert resampling.sign_flip_p(values, reps=40000) == pytest.approx(exact, abs=0.01)


def test_sign_flip_p_counts_plus_one_over_reps_plus_one() -> None:
    # 12 equal values: only the 2 all-same-sign patterns of 4096 reach the observed mean
    assert resampling.sign_flip_p([0.5] * 12, reps=999, seed=7) >= 1 / 1000


def test_family_bootstraps_of_hand_computed_cases() -> None:
    one_family = {"a": [0.1, 0.3, 0.2]}
    assert resampling.cluster_bootstrap_ci(one_family, reps=200) == pytest.approx((0.2, 0.2))
    equal_means = {"a": [0.0, 0.4], "b": [0.2], "c": [0.1, 0.3]}
    assert resampling.family_balanced_ci(equal_means, reps=200) == pytest.approx((0.2, 0.2))
    # clusters pool tasks: families of sizes 1 and 3 give means between their extremes
    low, high = resampling.cluster_bootstrap_ci({"a": [1.0], "b": [0.0, 0.0, 0.0]}, reps=2000)
    assert (low, high) == (0.0, 1.0)


def test_missing_estimates_are_nan_not_errors() -> None:
    assert math.isnan(resampling.mean([]))
    assert all(math.isnan(x) for x in resampling.bootstrap_ci([]))
    assert math.isnan(resampling.sign_flip_p([]))


def _obs(task: str, condition: str, model: str, reward: float, strict: bool = False, f1: float | None = 1.0,
         nmae: float | None = None) -> Observation:
    return Observation(agent="a", task=task, condition=condition, schema="native", model=model, reward=reward,
                       strict_pass=strict, key_f1=f1, key_precision=f1, nmae=nmae, extra_keys=0)


SMALL = Parameters(bootstrap_reps=400, sign_flip_reps=400)


def test_per_task_delta_is_the_mean_over_models_of_cell_mean_differences() -> None:
    observations = [
        _obs("t1", "no-skill", "m1", 0.2), _obs("t1", "no-skill", "m1", 0.4),  # cell 0.3
        _obs("t1", "with-skill", "m1", 0.9),  # cell 0.9 -> +0.6
        _obs("t1", "no-skill", "m2", 0.5), _obs("t1", "with-skill", "m2", 0.3),  # -0.2
        _obs("t2", "no-skill", "m1", 0.5), _obs("t2", "with-skill", "m1", 0.4, strict=True),  # -0.1 (m1 only)
    ]
    found = estimands.compare(estimands.cells(observations), "a", Arm("no-skill"), Arm("with-skill"), SMALL,
                              {"t1": "f", "t2": "g"}, {"t1": "raw", "t2": "standard"})
    assert found is not None
    per_task = {row["task"]: row["delta"] for row in found["per_task"]}
    assert per_task == pytest.approx({"t1": 0.2, "t2": -0.1})
    assert found["delta"] == pytest.approx(0.05)
    assert (found["tasks_improved"], found["tasks_declined"]) == (1, 1)
    assert found["strict_pass"] == {"no-skill": [0, 4], "with-skill": [1, 3]}
    assert found["by_model"]["m1"]["delta"] == pytest.approx((0.6 - 0.1) / 2)


def test_secondary_deltas_pair_only_cells_that_have_the_metric() -> None:
    observations = [
        _obs("t1", "no-skill", "m1", 0.5, f1=0.8, nmae=0.3), _obs("t1", "with-skill", "m1", 0.6, f1=0.9, nmae=0.1),
        _obs("t2", "no-skill", "m1", 0.5, f1=None, nmae=None), _obs("t2", "with-skill", "m1", 0.6, f1=1.0),
    ]
    found = estimands.compare(estimands.cells(observations), "a", Arm("no-skill"), Arm("with-skill"), SMALL, {}, {})
    assert found is not None
    assert (found["key_f1_delta"], found["key_f1_tasks"]) == (pytest.approx(0.1), 1)
    assert (found["nmae_delta"], found["nmae_tasks_improved"]) == (pytest.approx(-0.2), 1)


def test_every_control_is_compared_with_no_skill_and_with_skill() -> None:
    conditions = ["no-skill", "with-skill", "operational-spec", "with-skill-decoy"]
    table = estimands.cells([_obs("t1", c, "m1", 0.5) for c in conditions])
    pairs = {(b.condition, t.condition) for _, b, t in estimands.planned_comparisons(table)}
    assert pairs == {("no-skill", "with-skill"), ("no-skill", "operational-spec"),
                     ("operational-spec", "with-skill"), ("no-skill", "with-skill-decoy"),
                     ("with-skill-decoy", "with-skill")}


def test_quota_infrastructure_and_unfinished_runs_are_left_out_never_scored_zero() -> None:
    retried = RunRecord(task="t", condition="c", schema="native", agent="a", model="m", trial=1, reward=0.8,
                        attempt_outcomes=["infra_error", "quota", "scored"])
    never = RunRecord(task="t", condition="c", schema="native", agent="a", model="m", trial=2, outcome="missing")
    refused = RunRecord(task="t", condition="c", schema="native", agent="a", model="m", trial=3, reward=0.0,
                        outcome="quota")
    assert [o.reward for o in run_records.valid_observations([retried, never, refused])] == [0.8]
