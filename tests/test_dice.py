"""Dice expressions: parsing, exact distributions, and vectorised rolls against them."""
from __future__ import annotations

import numpy as np
import pytest

from sim.dice import Dice, DiceTable, parse_dice, roll


@pytest.mark.parametrize("text, expected", [
    ("d8", Dice(1, 8, 0)),
    ("D8", Dice(1, 8, 0)),
    ("2d6+1", Dice(2, 6, 1)),
    ("d4-1", Dice(1, 4, -1)),
    (" 3d10 + 2 ", Dice(3, 10, 2)),
    ("+3", Dice(0, 0, 3)),
    ("-2", Dice(0, 0, -2)),
    (3, Dice(0, 0, 3)),
])
def test_parse(text, expected):
    assert parse_dice(text) == expected


@pytest.mark.parametrize("text", ["", "d", "2d", "d8+", "dd8", "2x6", "d0", "0d6", "101d6", "d1001", True, 1.5, None])
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        parse_dice(text)


def test_parse_plain_number_text():
    assert parse_dice("3") == Dice(0, 0, 3)
    assert parse_dice(str(Dice(0, 0, 3))) == Dice(0, 0, 3)  # str() writes "3", which must read back


@pytest.mark.parametrize("text", ["d8", "2d6+1", "d4-1", "3d10", "-2"])
def test_str_round_trips(text):
    d = parse_dice(text)
    assert parse_dice(str(d)) == d


@pytest.mark.parametrize("text, mean, lo, hi", [
    ("d8", 4.5, 1, 8), ("d8+4", 8.5, 5, 12), ("2d6", 7.0, 2, 12), ("3d4-2", 5.5, 1, 10), ("+5", 5.0, 5, 5)])
def test_mean_min_max_and_distribution(text, mean, lo, hi):
    d = parse_dice(text)
    assert (d.mean, d.minimum, d.maximum) == (mean, lo, hi)
    dist = d.distribution()
    assert abs(sum(dist.values()) - 1) < 1e-12
    assert min(dist) == lo and max(dist) == hi
    assert abs(sum(x * p for x, p in dist.items()) - mean) < 1e-12


def test_2d6_distribution_is_triangular():
    dist = parse_dice("2d6").distribution()
    for total in range(2, 13):
        assert abs(dist[total] - (6 - abs(total - 7)) / 36) < 1e-12


def test_dice_table_rolls_match_exact_distributions():
    exprs = ["d8", "2d6+1", "d4-1", "+3", "3d4"]
    table = DiceTable([parse_dice(e) for e in exprs])
    n = 200000
    totals = table.roll(np.random.default_rng(5), n)
    assert totals.shape == (n, len(exprs))
    for j, e in enumerate(exprs):
        dist = parse_dice(e).distribution()
        col = totals[:, j]
        assert set(np.unique(col)) <= set(dist)
        for value, p in dist.items():
            k = int((col == value).sum())
            se = np.sqrt(p * (1 - p) / n)
            assert abs(k / n - p) <= 4 * se + 1e-12, (e, value, k / n, p)


def test_roll_helper_faces():
    r = roll(np.random.default_rng(1), 20, (100000,))
    assert r.min() == 1 and r.max() == 20
    counts = np.bincount(r, minlength=21)[1:]
    se = np.sqrt(0.05 * 0.95 / 100000)
    assert np.all(np.abs(counts / 100000 - 0.05) <= 4 * se)
    mixed = roll(np.random.default_rng(2), np.array([4, 6, 100]), (50000, 3))
    assert (mixed.min(axis=0) == 1).all() and list(mixed.max(axis=0)) == [4, 6, 100]


def test_largest_allowed_expression_does_not_overflow():
    totals = DiceTable([parse_dice("100d1000")]).roll(np.random.default_rng(0), 1000)
    assert totals.min() >= 100 and abs(totals.mean() - 50050) < 4 * np.sqrt(100 * (1000**2 - 1) / 12 / 1000)


def test_large_bonus_is_kept():
    totals = DiceTable([parse_dice("d4+40000")]).roll(np.random.default_rng(0), 10)
    assert totals.min() >= 40001
