"""The Lens challenge roll: exact outcome probabilities and the vectorised roller."""
import itertools
from fractions import Fraction

import numpy as np
import pytest

from sim.rulesets.lens import challenge as CH


def brute_force(dice, tn):
    """Efforts counted over every face combination, as exact fractions."""
    counts = [0, 0, 0, 0]
    for faces in itertools.product(*[range(1, s + 1) for s in dice]):
        counts[sum(f >= tn for f in faces)] += 1
    total = sum(counts)
    return [Fraction(c, total) for c in counts]


def test_hand_computed_d8_apprentice_tn4():
    # d8 + 2d6 against TN 4: P(d8 >= 4) = 5/8, P(d6 >= 4) = 1/2.
    # Botch = 3/8 * 1/2 * 1/2 = 3/32; Triumph = 5/8 * 1/4 = 5/32.
    p = CH.outcome_probs(8, 6, 4)
    assert p[0] == pytest.approx(3 / 32, abs=1e-12)
    assert p[3] == pytest.approx(5 / 32, abs=1e-12)
    assert p[1] == pytest.approx(11 / 32, abs=1e-12)
    assert p[2] == pytest.approx(13 / 32, abs=1e-12)


@pytest.mark.parametrize("talent,training,tn", [(6, 4, 2), (8, 6, 4), (10, 8, 6), (12, 12, 10), (8, 4, 5),
                                                (6, 12, 7)])
def test_exact_matches_enumeration(talent, training, tn):
    exact = brute_force([talent, training, training], tn)
    assert CH.outcome_probs(talent, training, tn) == pytest.approx([float(x) for x in exact], abs=1e-12)


def test_untrained_rolls_talent_alone():
    p = CH.outcome_probs(8, 0, 6)
    assert p == pytest.approx((5 / 8, 3 / 8, 0, 0))


def test_assist_and_interfere_take_best_and_worst_talent_die():
    # Assist with a d8: the talent die misses TN 4 only if both d8s miss: (3/8)^2.
    p = CH.outcome_probs(8, 0, 4, assist=8)
    assert p[0] == pytest.approx((3 / 8) ** 2)
    p = CH.outcome_probs(8, 0, 4, interfere=8)
    assert p[1] == pytest.approx((5 / 8) ** 2)


def test_quality_modifier_variant_by_hand():
    # Untrained d8 vs TN 6 with +1: faces 5..8 reach 6 -> 4/8. With -1: only 7, 8 -> 2/8.
    assert CH.outcome_probs(8, 0, 6, "quality_modifier", mod=1)[1] == pytest.approx(0.5)
    assert CH.outcome_probs(8, 0, 6, "quality_modifier", mod=-1)[1] == pytest.approx(0.25)
    # A penalty costs nothing while some die missed anyway: d8+2d4 vs 4, -1 vs enumeration.
    plain = CH.outcome_probs(8, 4, 4)
    worse = CH.outcome_probs(8, 4, 4, "quality_modifier", mod=-1)
    assert worse[3] < plain[3] and worse[0] == pytest.approx(plain[0])


def test_tool_die_variant_is_talent_training_tool():
    exact = brute_force([8, 6, 2], 2)  # crude tool die: d2
    assert CH.outcome_probs(8, 6, 2, "tool_die", tool=2) == pytest.approx([float(x) for x in exact])


@pytest.mark.parametrize("variant,kw", [("two_training", {}), ("quality_modifier", {"mod": 2}),
                                        ("tool_die", {"tool": 10}), ("two_training", {"assist": 12}),
                                        ("two_training", {"interfere": 6})])
def test_vectorised_roller_matches_exact_within_4_sigma(variant, kw):
    n = 200_000
    u = np.random.default_rng(7).random((n, 5), dtype=np.float32)
    eff = CH.roll(u, 8, 6, 5, variant, kw.get("tool", 0), kw.get("mod", 0), kw.get("assist", 0),
                  kw.get("interfere", 0))
    freq = np.bincount(eff, minlength=4) / n
    p = np.array(CH.outcome_probs(8, 6, 5, variant, kw.get("tool", 0), kw.get("mod", 0), kw.get("assist", 0),
                                  kw.get("interfere", 0)))
    sigma = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) <= 4 * sigma + 1e-9), (freq, p)


def test_roller_handles_mixed_rows():
    # Per-row dice: untrained rows never reach Success.
    u = np.random.default_rng(1).random((10_000, 5), dtype=np.float32)
    training = np.where(np.arange(10_000) % 2 == 0, 0, 12)
    eff = CH.roll(u, 12, training, 2)
    assert eff[training == 0].max() == 1
    assert eff[training == 12].max() == 3
