"""The fused duel loop's tables (kduel.py), made at build time: whether a scenario is a
duel that loop plays, a fixed buying order's purchases by points and state, and per
condition-table column the conditions a duel can meet and their summed modifiers."""
from __future__ import annotations

import numpy as np

from sim.rulesets.lifeforce import katt as A
from sim.rulesets.lifeforce import kdecide as P
from sim.rulesets.lifeforce import tables as TB
from sim.rulesets.lifeforce.layout import (
    K_FAMILY, K_HELD_W, K_MELEE_W, K_RANGED_W, K_REACT_AOO, K_DEFAULT_PLAY, K_SCRIPTED, K_SIDE, K_STUNT_EV, K_UNARMED_W,
    K_X0, K_Y0,
    R_ANY_LOADING, R_N_SCATTER, R_N_SIDES, R_SEIZE_ON, R_SKIRMISH_CELLS, W_LOADING, W_REACH, W_TABLE, W_UNARMED)

BUY_POINTS = 32  # a fixed order buys the same at this many points or more (every cost summed is less)
BUY_STATES = 16  # target disarmed, target threatened by the attacker, target prone, attacker in Defensive Stance
CRITS = (1 << A.ST_MINOR) | (1 << A.ST_MAJOR)
N_LIVE = 5  # LIVE: per condition-table column, the conditions (bits) a duel can meet that act in it
N_DUEL_CONDITIONS = 6
N_MODS = N_LIVE << N_DUEL_CONDITIONS  # MODS: per column, the modifier summed over each set of them
DUEL_CONDITIONS = [TB.COND[n] for n in ("prone", "hastened", "slowed", "defensive_stance", "threatened",
                                         "disarmed")]


def _greedy(K, W, R, COSTS, PRIO, att, tgt, w, points, state) -> int:
    """katt.buy_stunts' fixed-order purchase as a bit mask, in a duel (no second enemy)."""
    tgt_disarmed, threatened, prone, in_stance = (state >> k & 1 for k in range(4))
    applicable = {A.ST_RAPID: bool(W[w, W_LOADING]), A.ST_SKIRMISH: R[R_SKIRMISH_CELLS] > 0,
                  A.ST_DISARM: not tgt_disarmed and not W[K[tgt, K_HELD_W], W_UNARMED],
                  A.ST_THREATEN: not threatened, A.ST_PRONE: not prone, A.ST_DUAL: False,
                  A.ST_SEIZE: bool(R[R_SEIZE_ON]), A.ST_DS: not in_stance}
    left, mask = points, 0
    for s in PRIO[att]:
        cost = COSTS[W[w, W_TABLE], s] if s >= 0 else 0
        if cost <= 0 or left < cost or mask >> s & 1 or not applicable.get(s, True):
            continue
        if s in (A.ST_MINOR, A.ST_MAJOR) and mask & CRITS:
            continue
        assert s != A.ST_SKIRMISH  # outside the duel domain: its step walks the grid
        mask |= 1 << s
        left -= cost
    return mask


def live_conditions(COND) -> list[int]:
    """Per column of the condition table (offence .. begins), the bit mask of the
    conditions a duel can meet that act in it (bit k: DUEL_CONDITIONS[k]): a modifier, or
    a move / a beginning they forbid."""
    live = []
    for col in range(COND.shape[1]):
        acts = (COND[:, col] != 0) if col < A.C_MOVES else (COND[:, col] == 0)
        live.append(sum(1 << k for k, c in enumerate(DUEL_CONDITIONS) if acts[c]))
    return live


def condition_sums(COND) -> np.ndarray:
    """katt.cond_sum as a table: entry col << N_DUEL_CONDITIONS | m is column col's total
    over the duel conditions set in m (no loop over the bits, whose count is a coin toss)."""
    sums = np.zeros(N_MODS, dtype=np.int64)
    for col in range(N_LIVE):
        for m in range(1 << N_DUEL_CONDITIONS):
            sums[col << N_DUEL_CONDITIONS | m] = sum(COND[c, col] for k, c in enumerate(DUEL_CONDITIONS) if m >> k & 1)
    return sums


def duel_tables(K, W, R, COND, COSTS, PRIO) -> tuple[bool, np.ndarray]:
    """(whether the fused duel loop plays this scenario, its table: the fixed-order
    purchases, then `live_conditions`, then `condition_sums`)."""
    n_buy = 2 * 2 * (BUY_POINTS + 1) * BUY_STATES
    buy = np.zeros(n_buy + N_LIVE + N_MODS, dtype=np.int64)
    buy[n_buy:n_buy + N_LIVE] = live_conditions(COND)
    buy[n_buy + N_LIVE:] = condition_sums(COND)
    if K.shape[0] != 2 or R[R_N_SIDES] != 2 or K[0, K_SIDE] == K[1, K_SIDE]:
        return False, buy
    if R[R_ANY_LOADING] or R[R_N_SCATTER] or K[:, K_SCRIPTED].any() or (K[:, K_FAMILY] != P.STEADY).any():
        return False, buy
    if (K[:, K_RANGED_W] >= 0).any():
        return False, buy
    for c in range(2):
        if K[c, K_DEFAULT_PLAY] and K[1 - c, K_REACT_AOO] == 0:
            return False, buy  # the default play may Charge (kdecide.charge_pays): this loop has no Charge
    dx, dy = K[0, K_X0] - K[1, K_X0], K[0, K_Y0] - K[1, K_Y0]
    if (dx != 0 and dy != 0) or (dx == 0 and dy == 0):
        return False, buy  # the walk up is straight steps only along a row or a column
    for c in range(2):
        if not K[c, K_STUNT_EV] and R[R_SKIRMISH_CELLS] > 0 and (PRIO[c] == A.ST_SKIRMISH).any():
            return False, buy
        if min(W[K[c, K_MELEE_W], W_REACH], W[K[c, K_UNARMED_W], W_REACH]) < 1:
            return False, buy
    assert np.where(COSTS > 0, COSTS, 0).sum(axis=1).max() < BUY_POINTS
    for c in range(2):
        for kind, w in enumerate((K[c, K_MELEE_W], K[c, K_UNARMED_W])):
            for points in range(BUY_POINTS + 1):
                for state in range(BUY_STATES):
                    i = ((c * 2 + kind) * (BUY_POINTS + 1) + points) * BUY_STATES + state
                    buy[i] = _greedy(K, W, R, COSTS, PRIO, c, 1 - c, w, points, state)
    return True, buy
