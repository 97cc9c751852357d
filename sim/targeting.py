"""Targeting modes, once for every ruleset, as scalar code a kernel inlines.

A mode picks one column among the candidates a ruleset marks (enemies able to fight
and within reach, say). Random choice and every tie-break read one uniform `u` in
[0, 1): the same number whatever the mode, so two policy variants of a scenario stay
on common random numbers, and a choice among m candidates costs one number, not m.
"""
from __future__ import annotations


from sim.policy import TARGET_MODES
from sim.jit import once

RANDOM, WEAKEST, STRONGEST, FOCUS, NEAREST = (TARGET_MODES.index(m) for m in
                                              ("random", "weakest", "strongest", "focus", "nearest"))


@once
def nth_candidate(cand, nth):
    """The column of the nth (from 0) true entry of cand."""
    seen = 0
    for j in range(cand.shape[0]):
        if cand[j]:
            if seen == nth:
                return j
            seen += 1
    return -1


@once
def count(cand):
    m = 0
    for j in range(cand.shape[0]):
        if cand[j]:
            m += 1
    return m


@once
def _extreme(cand, score, lowest, u):
    # The best score among candidates, ties broken by u among the tied ones.
    best = 0.0
    found = False
    for j in range(cand.shape[0]):
        if cand[j] and (not found or (score[j] < best if lowest else score[j] > best)):
            best, found = score[j], True
    if not found:
        return -1
    tied = 0
    for j in range(cand.shape[0]):
        if cand[j] and score[j] == best:
            tied += 1
    nth = min(int(u * tied), tied - 1)
    for j in range(cand.shape[0]):
        if cand[j] and score[j] == best:
            if nth == 0:
                return j
            nth -= 1
    return -1


@once
def choose(mode, cand, health, distance, focus, u):
    """The chosen column, or -1 when cand holds no candidate.

    health (C,): what weakest / strongest compare (the ruleset's measure of health left);
    distance (C,): from the attacker, for nearest; focus: the side's focus column or -1.
    """
    if mode == WEAKEST:
        return _extreme(cand, health, True, u)
    if mode == STRONGEST:
        return _extreme(cand, health, False, u)
    if mode == NEAREST:
        return _extreme(cand, distance, True, u)
    if mode == FOCUS and focus >= 0 and cand[focus]:
        return focus
    m = count(cand)
    if m == 0:
        return -1
    return nth_candidate(cand, min(int(u * m), m - 1))
