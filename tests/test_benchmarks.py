"""The benchmark's own arithmetic: the draw tally behind the cost floor and the agreement z."""
import numpy as np

from benchmarks.bench import agreement
from benchmarks.floor import CountingGenerator
from sim.engine import Batch


def test_counting_generator_tallies_every_number_and_changes_no_stream():
    plain = Batch(np.random.default_rng(5), 10)
    counted_rng = CountingGenerator(np.random.default_rng(5))
    counted = Batch(counted_rng, 10)
    for batch in (plain, counted):
        batch.result = (batch.d(20, 3), batch.uniform(4, 2), batch.d(6))
    for a, b in zip(plain.result, counted.result):
        np.testing.assert_array_equal(a, b)
    assert counted_rng.counts == {"integers": 10 * 3 + 10, "random": 10 * 4 * 2}


def counts(n, wins, down, rounds):
    return {"n": n, "wins": {"a": wins, "b": n - wins}, "mean_rounds": rounds, "rounds_sd": 1.0,
            "states": {"A": {"standing": n - down, "dead": down}}}


def test_agreement_z_is_zero_for_equal_rates_and_large_for_different_ones():
    same = agreement(counts(10_000, 5_000, 3_000, 4.0), counts(20_000, 10_000, 6_000, 4.0))
    assert all(z == 0 for *_, z in same)
    apart = dict((what, z) for what, _, _, z in
                 agreement(counts(10_000, 5_000, 3_000, 4.0), counts(10_000, 4_000, 3_000, 4.1)))
    # 0.5 against 0.4 over 10,000 each: se = sqrt(0.45 * 0.55 * 2e-4) = 0.007036
    assert abs(apart["a wins (rate)"] - 0.1 / np.sqrt(0.45 * 0.55 * 2e-4)) < 1e-9
    assert abs(apart["mean rounds"] - (-0.1 / np.sqrt(2e-4))) < 1e-9
