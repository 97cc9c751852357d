"""Confidence intervals for the rates the simulator reports."""
from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054


def wilson(successes, trials, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval; well behaved at rates near 0 and 1, unlike the normal one."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / n, 0.0)
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = np.where(n > 0, np.clip(centre - half, 0, 1), 0.0)
    hi = np.where(n > 0, np.clip(centre + half, 0, 1), 1.0)
    return lo, hi


def mean_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean with a normal-approximation interval (used for per-skirmish means)."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(v.mean())
    se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0
    return m, m - z * se, m + z * se


def first_at_percentiles(score, ids, percentiles) -> dict[float, int]:
    """percentile -> the id of the first item (in `ids` order) whose score is that
    percentile of all scores (an observed score, `inverted_cdf`): the representative
    fights of a run and days of a day."""
    score = np.asarray(score)
    out = {}
    for p in percentiles:
        target = np.percentile(score, p, method="inverted_cdf")
        out[p] = int(ids[np.flatnonzero(score == target)[0]])
    return out
