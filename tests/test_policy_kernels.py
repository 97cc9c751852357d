"""The compiled target choice (sim/kernels.py) picks exactly what sim.policy.choose_targets picks."""
from __future__ import annotations

import numpy as np
import pytest

from sim import kernels
from sim.policy import TARGET_MODES, choose_targets


def _inputs(rng, n=3000, A=4, C=5, health_dtype=np.float32, offset=0):
    modes = rng.integers(0, len(TARGET_MODES), size=(n, A), dtype=np.int8)
    candidates = rng.random((n, A, C)) < 0.5
    candidates[rng.random(n) < 0.1] = False  # rows without any candidate
    candidates[:, 0][rng.random(n) < 0.2] = False  # slots without any candidate
    # Coarse values make ties in health, distance and noise common.
    health = (rng.integers(0, 4, size=(n, C)) + offset).astype(health_dtype)
    coarse = rng.random(n) < 0.5
    noise = rng.random((n, A, C), dtype=np.float32)
    noise[coarse] = (rng.integers(0, 4, size=(coarse.sum(), A, C)) / 4).astype(np.float32)
    distance = (rng.integers(0, 3, size=(n, A, C)) + offset).astype(np.int32)
    focus = rng.integers(-1, C, size=(n, A)).astype(np.int16)
    return modes, candidates, health, focus, noise, distance


@pytest.mark.parametrize("health_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("with_distance", [True, False])
@pytest.mark.parametrize("with_focus", [True, False])
# Near 2**20 a float32 sum rounds noise * 0.5 to eighths (ties the float64 sum would not
# have): the kernel must do its arithmetic in the same float types as NumPy.
@pytest.mark.parametrize("offset", [0, 2**20])
def test_kernel_target_choice_equals_choose_targets(health_dtype, with_distance, with_focus, offset):
    rng = np.random.default_rng(7)
    modes, candidates, health, focus, noise, distance = _inputs(rng, health_dtype=health_dtype, offset=offset)
    # Without a side focus yet (-1 everywhere) focus mode picks as random does.
    focus = focus if with_focus else np.full_like(focus, -1)
    expected = choose_targets(modes, candidates, health, focus, noise, distance if with_distance else None)
    got = kernels.choose_targets(modes, candidates, health, focus, noise, distance, with_distance)
    np.testing.assert_array_equal(got, expected)
    for m in range(len(TARGET_MODES)):  # every mode was exercised, with and without candidates
        assert ((modes == m) & (expected >= 0)).sum() > 100 and ((modes == m) & (expected < 0)).sum() > 10


@pytest.mark.parametrize("mode", range(len(TARGET_MODES)))
def test_kernel_breaks_exact_ties_by_the_first_column(mode):
    n, A, C = 4, 1, 4
    modes = np.full((n, A), mode, dtype=np.int8)
    candidates = np.ones((n, A, C), dtype=bool)
    candidates[1, 0, 0] = False
    health = np.ones((n, C), dtype=np.float32)
    noise = np.full((n, A, C), 0.5, dtype=np.float32)
    distance = np.ones((n, A, C), dtype=np.int32)
    focus = np.full((n, A), 2, dtype=np.int16)
    focus[2] = -1
    expected = choose_targets(modes, candidates, health, focus, noise, distance)
    got = kernels.choose_targets(modes, candidates, health, focus, noise, distance, True)
    np.testing.assert_array_equal(got, expected)


def test_focus_mode_without_focus_targets_is_an_error_not_random():
    """A ruleset that keeps no side focus must refuse `focus` when the scenario loads;
    calling the core without the focus targets fails instead of playing random."""
    modes = np.full((2, 1), TARGET_MODES.index("focus"), dtype=np.int8)
    with pytest.raises(ValueError, match="focus"):
        choose_targets(modes, np.ones((2, 1, 3), bool), np.ones((2, 3)), None, np.zeros((2, 1, 3)))
