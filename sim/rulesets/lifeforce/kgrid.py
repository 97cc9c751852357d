"""The grid for one skirmish in the kernel: distance, walking toward or away, a straight line.

Scalar counterparts of sim/battlefield.py's batch walks, cell for cell the same choices:
each step takes the best-scoring free neighbour (orthogonal neighbours first on ties),
toward a goal scored by grid distance with the straight-line distance as tie-break,
away from a threat by minus the grid distance; a mover with no better cell may sidestep
to an equally good one (never straight back) up to SIDESTEPS times. Fallen combatants
do not block.
"""
from __future__ import annotations

import numpy as np

from sim.battlefield import SIDESTEPS
from sim.rulesets.lifeforce.layout import S_STATUS, S_X, S_Y
from sim.jit import once

CHEBYSHEV, ALTERNATING, MANHATTAN = 0, 1, 2
FAR = 1 << 20
_TIE = 10_000
_NX = np.array([1, -1, 0, 0, 1, 1, -1, -1], dtype=np.int64)
_NY = np.array([0, 0, 1, -1, 1, -1, 1, -1], dtype=np.int64)


@once
def metric(dx, dy, kind):
    dx, dy = abs(dx), abs(dy)
    if kind == CHEBYSHEV:
        return max(dx, dy)
    if kind == MANHATTAN:
        return dx + dy
    return max(dx, dy) + min(dx, dy) // 2  # 1-2-1: every second diagonal costs two


@once
def refresh(S, D, who, kind):
    """Distances from `who` after it moved (every metric is symmetric)."""
    for j in range(S.shape[0]):
        d = metric(S[who, S_X] - S[j, S_X], S[who, S_Y] - S[j, S_Y], kind)
        D[who, j] = d
        D[j, who] = d


@once
def refresh_all(S, D, kind):
    for i in range(S.shape[0]):
        refresh(S, D, i, kind)


@once
def sign(v):
    return 1 if v > 0 else (-1 if v < 0 else 0)


@once
def gather_near(S, NEAR, who, radius):
    """The standing creatures other than `who` within `radius` cells of it on both axes,
    into NEAR; returns how many. A walk of `radius` cells only ever tests cells that
    near, and nobody else moves meanwhile: scanning every creature for each tested cell
    made a round of 300 a side cost as C^2."""
    x, y = S[who, S_X], S[who, S_Y]
    n = 0
    for j in range(S.shape[0]):
        if j != who and S[j, S_STATUS] == 0 and abs(S[j, S_X] - x) <= radius and abs(S[j, S_Y] - y) <= radius:
            NEAR[n] = j
            n += 1
    return n


@once
def _blocked(S, NEAR, n, x, y):
    for i in range(n):
        j = NEAR[i]
        if S[j, S_X] == x and S[j, S_Y] == y:
            return True
    return False


@once
def walk(S, NEAR, who, goal, allowance, stop, away, kind, width, height):
    """Move `who` toward (or away from) combatant `goal` up to `allowance` cells, stopping
    toward within `stop`. Returns the cells spent. NEAR is scratch of a row per creature."""
    n_near = gather_near(S, NEAR, who, allowance) if allowance > 0 else 0
    x, y = S[who, S_X], S[who, S_Y]
    px, py = -1 << 30, -1 << 30  # the cell it came from
    budget, sidesteps, diag_used, spent = allowance, SIDESTEPS, 0, 0
    while budget > 0:
        tx, ty = (x, y) if goal == who else (S[goal, S_X], S[goal, S_Y])
        dx0, dy0 = x - tx, y - ty
        m = metric(dx0, dy0, kind)
        if away:
            here = -m
        else:
            if m <= stop:
                break
            if (dx0 == 0) != (dy0 == 0):
                # On the goal's row or column the straight step is the unique best-scoring
                # neighbour under every metric (a diagonal one scores as far or farther,
                # and farther by the straight-line tie-break): take it when it is free.
                cx, cy = x - sign(dx0), y - sign(dy0)
                if (0 <= cx < width and 0 <= cy < height and not (cx == px and cy == py)
                        and not _blocked(S, NEAR, n_near, cx, cy)):
                    px, py = x, y
                    x, y = cx, cy
                    budget -= 1
                    spent += 1
                    continue
            here = m * _TIE + dx0 * dx0 + dy0 * dy0
        best, best_score, best_cost = -1, 0, 0
        for k in range(8):
            cx, cy = x + _NX[k], y + _NY[k]
            if cx < 0 or cx >= width or cy < 0 or cy >= height or (cx == px and cy == py):
                continue
            if _blocked(S, NEAR, n_near, cx, cy):
                continue
            diagonal = k >= 4
            cost = 1
            if diagonal and kind == MANHATTAN:
                cost = 2
            elif diagonal and kind == ALTERNATING and diag_used % 2 == 1:
                cost = 2
            if cost > budget:
                continue
            dx, dy = dx0 + _NX[k], dy0 + _NY[k]
            cm = metric(dx, dy, kind)
            score = -cm if away else cm * _TIE + dx * dx + dy * dy
            if best < 0 or score < best_score:
                best, best_score, best_cost = k, score, cost
        if best < 0:
            break
        better = best_score < here
        level = best_score == here if away else best_score // _TIE == here // _TIE
        side = (not better) and level and sidesteps > 0
        if not (better or side):
            break
        px, py = x, y
        x, y = x + _NX[best], y + _NY[best]
        budget -= best_cost
        spent += best_cost
        if best >= 4:
            diag_used += 1
        if side:
            sidesteps -= 1
    S[who, S_X], S[who, S_Y] = x, y
    return spent


@once
def line(S, NEAR, who, ddx, ddy, allowance, width, height):
    """Straight along (ddx, ddy) up to `allowance` cells, stopping before an obstacle or the edge."""
    moved = 0
    if ddx == 0 and ddy == 0:
        return 0
    n_near = gather_near(S, NEAR, who, allowance) if allowance > 0 else 0
    for _ in range(allowance):
        nx, ny = S[who, S_X] + ddx, S[who, S_Y] + ddy
        if nx < 0 or nx >= width or ny < 0 or ny >= height or _blocked(S, NEAR, n_near, nx, ny):
            break
        S[who, S_X], S[who, S_Y] = nx, ny
        moved += 1
    return moved


@once
def line_steps(x, y, ddx, ddy, tx, ty, reach, limit):
    """Squares along a straight line from (x, y) until (tx, ty) is within `reach` (Chebyshev
    on each axis), or 0 if it never is within `limit` squares (a charge goes straight)."""
    lo, hi = 1, limit
    for ax in range(2):
        dd = ddx if ax == 0 else ddy
        oo = (tx - x) if ax == 0 else (ty - y)
        if dd == 0:
            if abs(oo) > reach:
                hi = 0
        else:
            lo = max(lo, dd * oo - reach)
            hi = min(hi, dd * oo + reach)
    return lo if lo <= hi else 0

