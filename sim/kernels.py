"""Compiled per-skirmish kernels that know no ruleset (Numba).

NumPy plays a round as some forty passes over whole-batch arrays; a compiled loop
over one skirmish's attack slots does the same work in one pass, with every
temporary in a few cached lines. Rulesets keep all random draws in NumPy (same calls,
same order, same shapes), so random streams and results are bit-for-bit those of the
array code; a ruleset kernel loops over skirmish rows and calls these functions with
the row's index.

`pick_target` reproduces `sim.policy.choose_targets` exactly, tie rules and float
types included (tests/test_policy_kernels.py checks it against the NumPy version).

Kernels run without Numba's reference counting (`_nrt=False`, so they cannot allocate:
callers pass work arrays): with it, every array argument of an inlined helper and
every row view cost an atomic increment and decrement per row, which made the G&M
round three times slower. Helpers are inlined into the ruleset kernel (`inline`).

Numba's cache is keyed on the calling file only: after editing this module, clear the
`__pycache__/*.nbi|nbc` entries of the ruleset kernels that call it (or touch their files).
"""
from __future__ import annotations

import numpy as np
from numba import njit

RANDOM, WEAKEST, STRONGEST, FOCUS, NEAREST = range(5)  # sim.policy.TARGET_MODES

kernel = njit(cache=True, nogil=True, _nrt=False)
inline = njit(cache=True, nogil=True, inline="always", _nrt=False)


@inline
def pick_target(cand, a, mode, noise, i, health, focus, dist, di, o, use_nearest):
    """The target column of attack slot a of row i, or -1 when cand[a] holds no candidate.

    cand (A, C) who may be attacked; noise (n, A, C) uniforms in [0, 1): random choice
    and tie-breaks; health (C,) health left of row i (weakest/strongest); focus the
    side's focus target or -1; dist[di, o] (C,) distances from the attacker, used by
    `nearest` only when `use_nearest` (else nearest is random, as in choose_targets
    without distances). First index wins ties, as argmin/argmax do. Arrays are indexed
    in place rather than through row views, which would cost reference counts when
    called from a kernel that keeps them.
    """
    half = np.float32(0.5)
    C = cand.shape[1]
    chosen = -1
    best = noise[i, a, 0]
    for j in range(C):
        if cand[a, j] and (chosen < 0 or noise[i, a, j] > best):
            chosen, best = j, noise[i, a, j]
    if chosen < 0:
        return -1
    if mode == WEAKEST or mode == STRONGEST:
        # The same float type as the NumPy expression health + noise * 0.5.
        chosen = -1
        hbest = health[0] + noise[i, a, 0] * half
        for j in range(C):
            if cand[a, j]:
                v = health[j] + noise[i, a, j] * half
                if chosen < 0 or (v < hbest if mode == WEAKEST else v > hbest):
                    chosen, hbest = j, v
    elif mode == NEAREST and use_nearest:
        chosen = -1
        dbest = dist[di, o, 0] + noise[i, a, 0] * half
        for j in range(C):
            if cand[a, j]:
                v = dist[di, o, j] + noise[i, a, j] * half
                if chosen < 0 or v < dbest:
                    chosen, dbest = j, v
    elif mode == FOCUS and focus >= 0 and cand[a, focus]:
        chosen = focus
    return chosen


@njit(cache=True, nogil=True)  # allocates its result, so with reference counting
def choose_targets(modes, candidates, health, focus, noise, distance, use_nearest):
    """`sim.policy.choose_targets` as a loop (for tests and NumPy callers): modes (n, A),
    candidates (n, A, C), health (n, C), focus (n, A), noise (n, A, C), distance (n, A, C)."""
    n, A, C = candidates.shape
    out = np.empty((n, A), dtype=np.intp)
    cand = np.empty((A, C), dtype=np.bool_)
    h = np.empty(C, dtype=health.dtype)
    dist = np.empty((1, A, C), dtype=distance.dtype)
    for i in range(n):
        cand[:] = candidates[i]
        h[:] = health[i]
        dist[0] = distance[i]
        for a in range(A):
            out[i, a] = pick_target(cand, a, modes[i, a], noise, i, h, focus[i, a], dist, 0, a, use_nearest)
    return out


@inline
def attack_slots(i, p, slots, standing, can_act, enemy, dist, di, modes, health, focus, use_nearest, noise,
                 attack_roll, damage, defense, pen, cand, usable, acting, targets, need, hit,
                 taken, attacks, hits, dealt):
    """Row i's attack slots in phase p: candidates, target, to-hit, damage.

    Scratch of the row (C,): standing, can_act (may attack this round), health,
    defense, pen (attack penalty as attacker). Of the batch: modes (n, C) targeting
    mode, focus (n, sides) each side's focus target or -1, dist[di] (C, C) cells,
    noise (n, A, C), attack_roll and damage (n, A): the round's draws; attacks, hits
    and dealt (n, C) are added to. `slots` (see slot_arrays) per slot: in_phase[p],
    owner, side, base (hit on d20 <= base - defense - pen), reach in cells, and the
    earlier alternatives of slot a, earlier_idx[earlier_ptr[a]:earlier_ptr[a + 1]] (of
    several weapons only the first one that reaches a standing enemy is used).
    Writes acting, targets (-1: none), need and hit (A,) and adds the damage each
    combatant takes to `taken` (C,); cand (A, C) and usable (A,) are scratch.
    """
    in_phase, slot_owner, slot_side, slot_base, slot_reach, earlier_ptr, earlier_idx = slots
    A, C = cand.shape
    for a in range(A):
        o = slot_owner[a]
        any_c = False
        for j in range(C):
            c = standing[j] and enemy[o, j] and dist[di, o, j] <= slot_reach[a]
            cand[a, j] = c
            any_c |= c
        usable[a] = any_c
    for a in range(A):
        o = slot_owner[a]
        act = in_phase[p, a] and can_act[o] and standing[o]
        for k in range(earlier_ptr[a], earlier_ptr[a + 1]):
            if usable[earlier_idx[k]]:
                act = False
        tgt = -1
        if act:
            tgt = pick_target(cand, a, modes[i, o], noise, i, health, focus[i, slot_side[a]], dist, di, o,
                              use_nearest)
            act = tgt >= 0
        tc = max(tgt, 0)
        nd = slot_base[a] - defense[tc] - pen[o]
        h = act and attack_roll[i, a] <= nd
        acting[a], targets[a], need[a], hit[a] = act, tgt, nd, h
        if act:
            attacks[i, o] += 1
        if h:
            hits[i, o] += 1
            dealt[i, o] += damage[i, a]
            taken[tc] += damage[i, a]


def slot_arrays(in_phase, slot_owner, slot_side, slot_base, slot_reach, slot_earlier):
    """The `slots` tuple of attack_slots: in_phase (phases, A) bool, owner and side (A,)
    int16, base and reach (A,) int32, slot_earlier (A, A): [b, a] = b is an earlier
    alternative weapon of a's owner."""
    earlier = [np.flatnonzero(slot_earlier[:, a]) for a in range(len(slot_owner))]
    ptr = np.zeros(len(earlier) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(e) for e in earlier])
    idx = np.concatenate(earlier + [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    return (np.ascontiguousarray(in_phase, dtype=np.bool_), slot_owner.astype(np.int16),
            slot_side.astype(np.int16), slot_base.astype(np.int32), slot_reach.astype(np.int32), ptr, idx)
