"""The column-loop reductions must equal NumPy's own, values and dtypes, ties included."""
import numpy as np
import pytest

from sim.rulesets.gods_and_monsters import lastaxis as L


@pytest.mark.parametrize("dtype", [bool, np.int8, np.int16, np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("c", [1, 2, 3, 7])
def test_lastaxis_matches_numpy(dtype, c):
    rng = np.random.default_rng(c)
    a = rng.integers(0, 3, (40, 5, c)).astype(dtype)  # few values: many ties
    for ours, theirs in ((L.any_last, lambda x: x.any(axis=-1)), (L.sum_last, lambda x: x.sum(axis=-1)),
                         (L.min_last, lambda x: x.min(axis=-1)), (L.argmin_last, lambda x: x.argmin(axis=-1)),
                         (L.argmax_last, lambda x: x.argmax(axis=-1))):
        got, want = ours(a), theirs(a)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
