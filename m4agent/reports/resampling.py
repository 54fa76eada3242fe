"""Resampling statistics: percentile bootstraps (over tasks, over family clusters, over family means)
and the two-sided sign-flip randomisation test, as M4Bench's paper computes them.

The paper drew its random numbers from Python's ``random.Random(seed)`` (``randrange`` for each
draw). ``PythonDraws`` reproduces that exact stream with NumPy: Python seeds its Mersenne Twister
from the seed's 32-bit words (``init_by_array``), as ``numpy.random.RandomState([words])`` does, and
``randrange(n)`` takes the top ``n.bit_length()`` bits of one 32-bit output, drawing again while the
result is ``>= n``. So the same seed gives the paper's intervals and p-values to the last digit, at
NumPy's speed (a 200,000-repetition sign flip takes a fraction of a second, not seconds).

Percentile intervals take the order statistics at ``floor(0.025 R)`` and ``floor(0.975 R)`` (0-based)
of the ``R`` sorted replicate means; the sign-flip p-value is ``(hits + 1) / (R + 1)`` where a hit is
a replicate whose absolute mean is at least the observed absolute mean.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

BOOTSTRAP_REPS = 20_000
SIGN_FLIP_REPS = 200_000
SEED = 20260504  # the paper's seed for task bootstraps and sign-flip tests
FAMILY_SEED = 20260506  # the paper's seed for the family-cluster and family-balanced bootstraps
CHUNK_WORDS = 1 << 22


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean; NaN for no values (a missing estimate, never an error)."""
    return sum(values) / len(values) if values else math.nan


class PythonDraws:
    """The integers ``random.Random(seed).randrange(n)`` would return, in order, drawn in bulk."""

    def __init__(self, seed: int) -> None:
        value = abs(int(seed))
        words = []
        while True:
            words.append(value & 0xFFFFFFFF)
            value >>= 32
            if not value:
                break
        self._state = np.random.RandomState(words)  # a list of ints: init_by_array, as Python seeds

    def randbelow(self, n: int, count: int) -> np.ndarray:
        """The next ``count`` draws of ``randrange(n)`` (``n`` from 1 to 2**32 - 1).

        Words are drawn in chunks; when a chunk holds more accepted draws than needed, the generator
        is rewound to the chunk's start and only the words Python would have consumed are drawn
        again, so the next call continues exactly where Python's ``random`` would.
        """
        if not 1 <= n < 1 << 32:
            raise ValueError(f"n must be in [1, 2**32), not {n}")
        shift = np.uint32(32 - n.bit_length())
        acceptance = n / (1 << n.bit_length())
        found: list[np.ndarray] = []
        remaining = count
        while remaining > 0:
            saved = self._state.get_state()
            size = min(CHUNK_WORDS, int(remaining / acceptance) + 64)
            draws = (self._state.randint(0, 1 << 32, size=size, dtype=np.uint32) >> shift).astype(np.int64)
            accepted = np.flatnonzero(draws < n)
            if len(accepted) > remaining:
                used = int(accepted[remaining - 1]) + 1
                self._state.set_state(saved)
                self._state.randint(0, 1 << 32, size=used, dtype=np.uint32)
                accepted = accepted[:remaining]
            found.append(draws[accepted])
            remaining -= len(accepted)
        return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def _percentile_pair(replicates: np.ndarray) -> tuple[float, float]:
    ordered = np.sort(replicates)
    reps = len(ordered)
    return float(ordered[int(0.025 * reps)]), float(ordered[int(0.975 * reps)])


def bootstrap_ci(values: Sequence[float], reps: int = BOOTSTRAP_REPS, seed: int = SEED) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of the mean: resample the values (tasks) with replacement."""
    if not values:
        return math.nan, math.nan
    data = np.asarray(values, dtype=float)
    n = len(data)
    picks = PythonDraws(seed).randbelow(n, reps * n).reshape(reps, n)
    return _percentile_pair(data[picks].mean(axis=1))


def cluster_bootstrap_ci(clusters: Mapping[str, Sequence[float]], reps: int = BOOTSTRAP_REPS,
                         seed: int = FAMILY_SEED) -> tuple[float, float]:
    """Family-cluster bootstrap: draw as many families as there are, with replacement (in sorted
    order of their names), pool their task values, take the pooled mean."""
    names = sorted(name for name in clusters if clusters[name])
    if not names:
        return math.nan, math.nan
    sums = np.array([sum(clusters[name]) for name in names], dtype=float)
    counts = np.array([len(clusters[name]) for name in names], dtype=float)
    k = len(names)
    picks = PythonDraws(seed).randbelow(k, reps * k).reshape(reps, k)
    return _percentile_pair(sums[picks].sum(axis=1) / counts[picks].sum(axis=1))


def family_balanced_ci(clusters: Mapping[str, Sequence[float]], reps: int = BOOTSTRAP_REPS,
                       seed: int = FAMILY_SEED) -> tuple[float, float]:
    """Family-balanced bootstrap: resample the family means (each family weighs the same)."""
    names = sorted(name for name in clusters if clusters[name])
    if not names:
        return math.nan, math.nan
    means = np.array([mean(clusters[name]) for name in names], dtype=float)
    k = len(names)
    picks = PythonDraws(seed).randbelow(k, reps * k).reshape(reps, k)
    return _percentile_pair(means[picks].mean(axis=1))


def sign_flip_p(values: Sequence[float], reps: int = SIGN_FLIP_REPS, seed: int = SEED) -> float:
    """Two-sided sign-flip randomisation p-value of the mean (null: each value's sign is a coin flip).

    Each replicate flips every value's sign where ``randrange(2)`` is 0; ``p = (hits + 1) / (reps + 1)``.
    """
    if not values:
        return math.nan
    data = np.asarray(values, dtype=float)
    n = len(data)
    observed = abs(float(data.mean()))
    stream = PythonDraws(seed)
    hits = 0
    batch = max(1, CHUNK_WORDS // (2 * n))
    done = 0
    while done < reps:
        size = min(batch, reps - done)
        keep = stream.randbelow(2, size * n).reshape(size, n)
        flipped = np.where(keep == 1, data, -data)
        # a tiny slack absorbs summation-order rounding: a replicate equal to the observed mean is a hit
        hits += int(np.count_nonzero(np.abs(flipped.mean(axis=1)) >= observed - 1e-12))
        done += size
    return (hits + 1) / (reps + 1)
