"""Movement on the battlefield for one skirmish: distances, closing in, kiting, withdrawing.

The walk is sim.battlefield's, cell by cell: each mover in turn (in combatant order,
seeing where earlier movers ended) takes the free neighbouring cell that scores best
while that improves, with up to SIDESTEPS level steps to get round a comrade.
"""
from __future__ import annotations

import numpy as np

from sim import keyed, targeting
from sim.battlefield import SIDESTEPS
from sim.rulesets.base import STANDING
from sim.rulesets.gods_and_monsters.tables import (
    ADVANCE, C_KITE_CELLS, C_MAX_REACH, C_MOVE_CELLS, C_MOVE_MODE, C_SIDE, FAR, G_HEIGHT, G_METRIC, G_PURSUIT,
    G_WIDTH, KITE, MOVE_GOAL, NEAREST, PURSUIT_SIMULTANEOUS, RANDOM, W_GOAL_AWAY, W_GOAL_CLOSE, W_MAY_MOVE, W_MOVED,
    W_STATUS, W_SURV, W_TMODE, W_VERVE, W_X, W_Y, WITHDRAW_MOVE)
from sim.jit import once, rule

NX = np.array([1, -1, 0, 0, 1, 1, -1, -1], dtype=np.int64)
NY = np.array([0, 0, 1, -1, 1, -1, 1, -1], dtype=np.int64)
TIE = 10_000
NEVER_SCORE = 1 << 62


@once
def metric(dx, dy, code):
    dx, dy = abs(dx), abs(dy)
    if code == 0:
        return max(dx, dy)
    if code == 2:
        return dx + dy
    return max(dx, dy) + min(dx, dy) // 2  # 1-2-1: every second diagonal costs two


@rule
def distances(W, dist, code):
    C = dist.shape[0]
    for i in range(C):
        for j in range(C):
            dist[i, j] = metric(W[W_X, i] - W[W_X, j], W[W_Y, i] - W[W_Y, j], code)


@once
def _score(dx, dy, code, away):
    m = metric(dx, dy, code)
    return -m if away else m * TIE + dx * dx + dy * dy


@rule
def walk(W, flags, i, goal, budget, stop_within, away):
    """Move combatant i toward (or away from) combatant `goal`; returns cells spent."""
    code = flags[G_METRIC]
    width, height = flags[G_WIDTH], flags[G_HEIGHT]
    C = W.shape[1]
    tx, ty = W[W_X, goal], W[W_Y, goal]
    x, y = W[W_X, i], W[W_Y, i]
    px, py = x, y
    sidesteps, diag_used, spent = SIDESTEPS, 0, 0
    while budget > 0:
        dx0, dy0 = x - tx, y - ty
        here = _score(dx0, dy0, code, away)
        if not away and metric(dx0, dy0, code) <= stop_within:
            break
        best, best_score, best_cost = -1, NEVER_SCORE, 1
        for k in range(8):
            cx, cy = x + NX[k], y + NY[k]
            if cx < 0 or cx >= width or cy < 0 or cy >= height or (cx == px and cy == py):
                continue
            blocked = False
            for j in range(C):
                if j != i and W[W_STATUS, j] == STANDING and W[W_X, j] == cx and W[W_Y, j] == cy:
                    blocked = True
                    break
            if blocked:
                continue
            cost = 1
            if k >= 4 and code == 2:
                cost = 2  # a diagonal is two orthogonal steps
            elif k >= 4 and code == 1 and diag_used % 2 == 1:
                cost = 2
            if cost > budget:
                continue
            s = _score(dx0 + NX[k], dy0 + NY[k], code, away)
            if s < best_score:
                best, best_score, best_cost = k, s, cost
        if best < 0:
            break
        better = best_score < here
        level = best_score == here if away else best_score // TIE == here // TIE
        side = (not better) and level and sidesteps > 0
        if not (better or side):
            break
        px, py = x, y
        x, y = x + NX[best], y + NY[best]
        budget -= best_cost
        spent += best_cost
        if best >= 4:
            diag_used += 1
        if side:
            sidesteps -= 1
    W[W_X, i], W[W_Y, i] = x, y
    return spent


@once
def move_all(seed, g, rnd, W, flags, ct, dist, focus, cand, hbuf, dbuf):
    """Movement at the start of the round (W_MAY_MOVE: who may move).

    Kiters and withdrawers back away from the nearest enemy at the round's start. The
    others with no enemy in reach close on their target: the nearest enemy under random
    targeting, else the one their targeting mode picks. Under `pursuit: simultaneous`
    those backing away step first and the closers then choose and chase from where they
    ended ("any target who comes within their movement ... at any time during the
    round"); under `start_positions` the closers walk on the round's starting positions
    and those backing away step after them. Closers walk in combatant order, each seeing
    where earlier movers ended. W_MOVED marks who walked (round.py rewrites it from the
    positions). Returns whether anyone moved.
    """
    C = W.shape[1]
    moved = W[W_MOVED]
    for c in range(C):
        hbuf[c] = W[W_VERVE, c] + W[W_SURV, c]
        moved[c] = 0
        W[W_GOAL_CLOSE, c], W[W_GOAL_AWAY, c] = -1, -1
        if not (W[W_MAY_MOVE, c] and W[W_STATUS, c] == STANDING):
            continue
        ni = _nearest_enemy(W, ct, dist, c)
        mode = ct[C_MOVE_MODE, c]
        if ni >= 0 and ((mode == KITE and dist[c, ni] < ct[C_KITE_CELLS, c]) or mode == WITHDRAW_MOVE):
            W[W_GOAL_AWAY, c] = ni
    first = flags[G_PURSUIT] == PURSUIT_SIMULTANEOUS
    moved_any = False
    if first:
        moved_any = _back_away(W, flags, ct, moved)
        if moved_any:
            _mover_distances(W, dist, moved, flags[G_METRIC])
    for c in range(C):
        if W[W_MAY_MOVE, c] and W[W_STATUS, c] == STANDING and W[W_GOAL_AWAY, c] < 0:
            W[W_GOAL_CLOSE, c] = _close_goal(seed, g, rnd, W, ct, dist, focus, cand, hbuf, dbuf, c)
    for c in range(C):
        if W[W_GOAL_CLOSE, c] >= 0 and walk(W, flags, c, W[W_GOAL_CLOSE, c], ct[C_MOVE_CELLS, c],
                                            ct[C_MAX_REACH, c], False) > 0:
            moved[c] = 1
            moved_any = True
    if not first:
        moved_any |= _back_away(W, flags, ct, moved)
    if moved_any:
        _mover_distances(W, dist, moved, flags[G_METRIC])
    return moved_any


@once
def _nearest_enemy(W, ct, dist, c):
    nd, ni = FAR, -1
    for j in range(W.shape[1]):
        if W[W_STATUS, j] == STANDING and ct[C_SIDE, j] != ct[C_SIDE, c] and dist[c, j] < nd:
            nd, ni = dist[c, j], j
    return ni


@once
def _close_goal(seed, g, rnd, W, ct, dist, focus, cand, hbuf, dbuf, c):
    """Whom c closes on (-1: an enemy is in reach, or c does not advance)."""
    ni = _nearest_enemy(W, ct, dist, c)
    mode = ct[C_MOVE_MODE, c]
    if ni < 0 or dist[c, ni] <= ct[C_MAX_REACH, c] or not (mode == ADVANCE or mode == KITE):
        return -1
    tm = W[W_TMODE, c]
    if tm == RANDOM:
        tm = NEAREST
    for j in range(W.shape[1]):
        cand[j] = W[W_STATUS, j] == STANDING and ct[C_SIDE, j] != ct[C_SIDE, c]
        dbuf[j] = dist[c, j]
    u = keyed.uniform(seed, g, rnd, MOVE_GOAL, c, 0)
    return targeting.choose(tm, cand, hbuf, dbuf, focus[ct[C_SIDE, c]], u)


@once
def _back_away(W, flags, ct, moved):
    any_ = False
    for c in range(W.shape[1]):
        if W[W_GOAL_AWAY, c] >= 0 and walk(W, flags, c, W[W_GOAL_AWAY, c], ct[C_MOVE_CELLS, c], 0, True) > 0:
            moved[c] = 1
            any_ = True
    return any_


@once
def _mover_distances(W, dist, moved, code):
    # Only the rows and columns of movers change (the metric is symmetric).
    C = dist.shape[0]
    for i in range(C):
        if moved[i]:
            for j in range(C):
                d = metric(W[W_X, i] - W[W_X, j], W[W_Y, i] - W[W_Y, j], code)
                dist[i, j], dist[j, i] = d, d
