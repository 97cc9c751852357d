"""Movement of one creature per row, as the shared battlefield moves it, on active rows only.

In a Lifeforce turn exactly one creature moves in each row. `sim.battlefield`'s walks
take (N, C) movers and step every column over every row until the last mover stops;
here the mover is given per row (`who`), so all rows of a turn walk together, and rows
leave the arrays as soon as their mover stops. The rules of the walk are the
battlefield's (`_move`, `move_line`): the same scores, tie-breaks, sidesteps and step
costs, with its helpers, so positions are identical to calling it.
"""
from __future__ import annotations

import numpy as np

from sim import battlefield as bf



def _sq(a, b):
    d = a.astype(np.int32) - b
    return d[..., 0] ** 2 + d[..., 1] ** 2


def _step_cost(diag_used, metric: str) -> np.ndarray:
    """(N, 8) cost of each neighbour step given the diagonals already taken (as the core walk)."""
    cost = np.ones((len(diag_used), len(bf.NEIGHBOURS)), dtype=np.int32)
    if metric == "manhattan":
        cost[:, bf._DIAGONAL] = 2
    elif metric == "alternating":
        cost[:, bf._DIAGONAL] = np.where(diag_used % 2 == 1, 2, 1)[:, None]
    return cost


def _setup(pos, who, blocking):
    # The mover never blocks itself, so its column of `pos` is never read again and
    # need not follow it; the other creatures stand still during the walk.
    m = len(who)
    k = np.arange(m)
    cur = pos[k, who].copy()
    others = blocking.copy()
    others[k, who] = False
    return cur, others


def _code(xy, grid) -> np.ndarray:
    """One int per cell, unique for cells up to one step outside the grid."""
    return (xy[..., 0].astype(np.int32) + 1) * (grid.height + 2) + (xy[..., 1].astype(np.int32) + 1)


def _blockers(pos, others, grid) -> np.ndarray:
    """(m, C) cell codes of the creatures that block, -1 for the others."""
    return np.where(others, _code(pos, grid), -1)


def _occupied(codes, blockers) -> np.ndarray:
    """codes (m, K) -> (m, K): a blocking creature stands there."""
    # A loop over the few creatures beats an (m, K, C) temporary reduced over its short axis.
    occ = codes == blockers[:, :1]
    for j in range(1, blockers.shape[1]):
        occ |= codes == blockers[:, j:j + 1]
    return occ


def _walk(pos, grid, who, goal, allowance, blocking, stop_within, metric, toward: bool) -> np.ndarray:
    """The mover's cell (m, 2) after walking toward (or away from) creature goal[k]."""
    cur, others = _setup(pos, who, blocking)
    out = cur.copy()
    tgt = pos[np.arange(len(who)), goal]
    budget = np.asarray(allowance, dtype=np.int32)
    idx = np.flatnonzero((budget > 0) & (goal >= 0))
    O, T, B, cu = _blockers(pos[idx], others[idx], grid), tgt[idx], budget[idx], cur[idx]
    sw = None if stop_within is None else np.asarray(stop_within)[idx]
    prev = cu.copy()
    diag = np.zeros(len(idx), dtype=np.int32)
    side_left = np.full(len(idx), bf.SIDESTEPS, dtype=np.int32)
    while len(idx):
        d = bf._metric(cu[:, 0].astype(np.int32) - T[:, 0], cu[:, 1].astype(np.int32) - T[:, 1], metric)
        if toward:
            here = d + _sq(cu, T) / 1e4
            active = (B > 0) & ~(d <= sw)
        else:
            here = -d.astype(float)
            active = B > 0
        if not active.all():
            idx, O, T, B, cu, prev, diag, side_left, here = (
                x[active] for x in (idx, O, T, B, cu, prev, diag, side_left, here))
            if sw is not None:
                sw = sw[active]
            if not len(idx):
                break
        # x and y of the eight neighbours as separate (m, 8) arrays (contiguous, int32).
        cx = cu[:, 0, None].astype(np.int32) + bf.NEIGHBOURS[None, :, 0]
        cy = cu[:, 1, None].astype(np.int32) + bf.NEIGHBOURS[None, :, 1]
        codes = (cx + 1) * (grid.height + 2) + (cy + 1)
        cost = _step_cost(diag, metric)
        inside = (cx >= 0) & (cx < grid.width) & (cy >= 0) & (cy < grid.height)
        ok = inside & ~_occupied(codes, O) & (cost <= B[:, None])
        dx, dy = cx - T[:, 0, None], cy - T[:, 1, None]
        if toward:
            score = bf._metric(dx, dy, metric) + (dx ** 2 + dy ** 2) / 1e4
        else:
            score = -bf._metric(dx, dy, metric).astype(float)
        score = np.where(ok, score, np.inf)
        back = codes == _code(prev, grid)[:, None]
        score = np.where(back, np.inf, score)
        best = score.argmin(axis=1)
        k = np.arange(len(idx))
        best_score = score[k, best]
        better = best_score < here
        side = ~better & (np.floor(best_score) == np.floor(here)) & (side_left > 0)
        go = better | side
        if not go.all():
            # A mover that does not step now never will: nothing it depends on changes.
            idx, O, T, B, cu, prev, diag, side_left, best, side, cost = (
                x[go] for x in (idx, O, T, B, cu, prev, diag, side_left, best, side, cost))
            if sw is not None:
                sw = sw[go]
            if not len(idx):
                break
        k = np.arange(len(idx))
        prev = cu
        cu = cu + bf.NEIGHBOURS[best]
        B = B - cost[k, best]
        diag = diag + bf._DIAGONAL[best]
        side_left = side_left - side
        out[idx] = cu
    return out


def toward(pos, grid, who, target, allowance, blocking, stop_within, metric):
    """bf.step_toward for one mover per row: its new cell (m, 2)."""
    return _walk(pos, grid, who, target, allowance, blocking, stop_within, metric, True)


def away(pos, grid, who, threat, allowance, blocking, metric):
    """bf.step_away for one mover per row: its new cell (m, 2)."""
    return _walk(pos, grid, who, threat, allowance, blocking, None, metric, False)


def line(pos, grid, who, direction, allowance, blocking):
    """bf.move_line for one mover per row: its new cell (m, 2)."""
    cur, others = _setup(pos, who, blocking)
    out = cur.copy()
    direction = np.asarray(direction, dtype=np.int16)
    budget = np.asarray(allowance, dtype=np.int32)
    idx = np.flatnonzero((budget > 0) & (direction != 0).any(axis=1))
    O, B, cu, dr = _blockers(pos[idx], others[idx], grid), budget[idx], cur[idx], direction[idx]
    while len(idx):
        nxt = cu + dr
        ok = (B > 0) & bf._inside(nxt, grid) & ~_occupied(_code(nxt, grid)[:, None], O)[:, 0]
        idx, O, B, dr, cu = (x[ok] for x in (idx, O, B, dr, nxt))
        B = B - 1
        out[idx] = cu
    return out
