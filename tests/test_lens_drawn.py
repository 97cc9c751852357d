"""Numbers the Lens kernel draws ahead of use, and targets chosen from a count kept as the
candidates are marked: the same numbers and the same choices as drawing and counting where
they are used (the kernel's speed work must not change a fight).

The rules run uncompiled (py_func); the keyed library they call is compiled.
"""
from __future__ import annotations

import itertools

import numpy as np

from sim import keyed, targeting
from sim.rulesets.lens import kbeat, kcore

SEED, SKIRMISH, ROUND, SITE, ACTOR = np.uint64(0x5EED_1234_ABCD), 7_654_321, 3, kcore.SITE_WEAPON, 2


def _ctx():
    ctx = np.zeros(64, np.int64)
    ctx[kcore.SK], ctx[kcore.RND] = SKIRMISH, ROUND
    return ctx


def test_dice_from_a_block_drawn_ahead_are_the_keyed_dice():
    # Past four dice the roll reads further blocks itself: die j stays number k0 + j.
    ctx = _ctx()
    for count, sides, bonus, k0 in itertools.product(range(10), (2, 4, 6, 7), (-1, 0, 3), (0, 128, 4096)):
        w = keyed.block(SEED, SKIRMISH, ROUND, SITE, ACTOR, k0 // 4)
        got = kcore.roll_drawn.py_func(w, count, sides, bonus, SEED, ctx, SITE, ACTOR, k0)
        want = keyed.dice4_sum(count, sides, bonus, SEED, SKIRMISH, ROUND, SITE, ACTOR, k0)
        assert got == want, (count, sides, bonus, k0)
        assert kcore.roll_dice.py_func(count, sides, bonus, SEED, ctx, SITE, ACTOR, k0) == want


def test_a_block_drawn_ahead_reads_back_as_drawn():
    ctx = _ctx()
    room = ctx[20:20 + 4 * kcore.N_DRAWN]
    for q in range(kcore.N_DRAWN):
        kcore.draw_ahead.py_func(room, q, SEED, ctx, SITE + q, ACTOR, 5 * q)
    for q in range(kcore.N_DRAWN):  # a later draw does not touch an earlier room
        want = keyed.block_words(SEED, SKIRMISH, ROUND, SITE + q, ACTOR, 5 * q)
        assert [int(x) for x in kcore.drawn.py_func(room, q)] == [int(x) for x in want]


def test_a_target_chosen_from_the_kept_count_is_targetings_choice():
    rng = np.random.default_rng(13)
    modes = (targeting.RANDOM, targeting.WEAKEST, targeting.STRONGEST, targeting.FOCUS, targeting.NEAREST)
    checked = 0
    for _ in range(300):
        n = int(rng.integers(1, 7))
        cand = (rng.random(n) < 0.6).astype(np.int64)
        health = rng.integers(0, 4, n).astype(np.float64)  # ties, so u breaks them
        dist = rng.integers(0, 3, n).astype(np.float64)
        m = int(cand.sum())
        for mode, focus, u in itertools.product(modes, range(-1, n), (0.0, 0.37, 0.999)):
            got = kbeat.choose_counted.py_func(mode, cand, m, health, dist, focus, u)
            assert got == targeting.choose(mode, cand, health, dist, focus, u), (mode, cand, focus, u)
            checked += got >= 0
    assert checked > 1000
