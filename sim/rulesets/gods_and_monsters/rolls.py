"""A round's small dice, read as halves of ROUND_ROLLS blocks (tables.py: the layout).

`rw` (5, blocks) keeps the round's evaluated blocks: rows 0-3 the words, row 4 the round
they belong to (0: none yet; set to 0 at every skirmish's start), so each block is
evaluated once, when the first of its numbers is read, whichever path reads it.
"""
from __future__ import annotations

import numpy as np

from sim import keyed, targeting
from sim.rulesets.gods_and_monsters.tables import ROUND_ROLLS, inline


@inline
def forget(rw):
    for b in range(rw.shape[1]):
        rw[4, b] = 0


@inline
def half(rw, seed, g, rnd, i):
    """The 16 bits of number i of the round."""
    b = i >> 3
    if rw[4, b] != rnd:
        w0, w1, w2, w3 = keyed.block(seed, g, rnd, ROUND_ROLLS, 0, b)
        rw[0, b], rw[1, b], rw[2, b], rw[3, b] = np.int64(w0), np.int64(w1), np.int64(w2), np.int64(w3)
        rw[4, b] = rnd
    return keyed.half_word(rw[(i & 7) >> 1, b], i & 7)


@inline
def die_of(h, sides, seed, g, rnd, i):
    """Number i of the round as a die, from its 16 bits h (kept from `half`)."""
    return keyed.die_half(h, sides, seed, g, rnd, ROUND_ROLLS, 0, i >> 3, i & 7)


@inline
def die(rw, sides, seed, g, rnd, i):
    """Number i of the round as a die of `sides` faces."""
    return die_of(half(rw, seed, g, rnd, i), sides, seed, g, rnd, i)


@inline
def target_uniform(rw, mode, cand, hbuf, dbuf, focus, seed, g, rnd, i):
    """The uniform targeting.choose reads, from number i of the round: a die of as many
    faces as choose has columns to pick among (unbiased), as the middle of its share of
    [0, 1), so choose takes column nth of them for a roll of nth + 1. Without a choice
    (one column or none) nothing is read."""
    m = _choices(mode, cand, hbuf, dbuf, focus)
    if m <= 1:
        return 0.0
    return (die(rw, m, seed, g, rnd, i) - 0.5) / m


@inline
def _choices(mode, cand, hbuf, dbuf, focus):
    # As targeting.choose counts them: the tied best for weakest, strongest and nearest,
    # one past a standing focus, else every candidate.
    if mode == targeting.WEAKEST or mode == targeting.STRONGEST or mode == targeting.NEAREST:
        score = dbuf if mode == targeting.NEAREST else hbuf
        lowest = mode != targeting.STRONGEST
        best, found = 0.0, False
        for j in range(cand.shape[0]):
            if cand[j] and (not found or (score[j] < best if lowest else score[j] > best)):
                best, found = score[j], True
        tied = 0
        for j in range(cand.shape[0]):
            if cand[j] and score[j] == best:
                tied += 1
        return tied
    if mode == targeting.FOCUS and focus >= 0 and cand[focus]:
        return 1
    return targeting.count(cand)
