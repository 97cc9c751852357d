"""Where combatants stand: reach, range, Move and Dodge's open square.

With the rule option `engagement: battlefield` positions live on the shared grid
(sim/battlefield.py); with `all_engaged`, or when the scenario has no battlefield
module to use, everyone can reach everyone and Dodge always finds an open square.
"""
from __future__ import annotations

import math

import numpy as np

try:  # the shared battlefield lands on main separately
    from sim import battlefield as BF
except ImportError:  # pragma: no cover - only before the merge
    BF = None

from sim.rulesets.base import STANDING


def spatial(setup) -> bool:
    return setup.rules["engagement"] == "battlefield" and BF is not None and setup.grid is not None


def initial(setup, batch):
    if not spatial(setup):
        return None
    return BF.Layout.initial(setup.extra["scenario"], batch).astype(np.int16)


def distances(setup, state) -> np.ndarray | None:
    """(N, C, C) cells between combatants, or None when everyone is engaged."""
    if state.pos is None:
        return None
    if state.dist is None or len(state.dist) != len(state.pos):
        state.dist = BF.distances(state.pos, setup.grid.metric)
    return state.dist


def within(setup, state, c: int, reach: np.ndarray | int) -> np.ndarray:
    """(N, C) whom combatant c can reach (reach in cells, scalar or (N,))."""
    n, C = state.status.shape
    if state.pos is None:
        return np.ones((n, C), dtype=bool)
    d = distances(setup, state)[:, c, :]
    return d <= np.reshape(reach, (-1, 1))


def cell_feet(setup) -> float:
    """Feet in one cell: the battlefield's cell size, else the Lens's 5 ft (setup._cells)."""
    return float(setup.grid.cell_size) if setup.grid is not None else 5.0


def nearest_enemy(setup, state, c: int) -> np.ndarray:
    """(N,) cells to the nearest standing enemy (1 when everyone is engaged, large if none)."""
    foes = (state.status == STANDING) & setup.enemy[c][None, :]
    if state.pos is None:
        return np.where(foes.any(axis=1), 1, 999)
    d = distances(setup, state)[:, c, :]
    return np.where(foes, d, 999).min(axis=1)


def open_square(setup, state, who: np.ndarray, need: np.ndarray | None = None) -> np.ndarray:
    """(N,) whether combatant who[n] has a free neighbouring cell (Dodge's requirement).

    Only rows in `need` are looked at (the others come back False), which keeps the
    neighbourhood search to the blows that could be dodged at all."""
    if state.pos is None:
        return np.ones(len(who), dtype=bool) if need is None else need.copy()
    r = np.arange(len(who)) if need is None else np.flatnonzero(need)
    out = np.zeros(len(who), dtype=bool)
    if len(r):
        # The other combatants fill at most C - 1 cells: with more neighbouring cells inside
        # the grid than that, one is free for sure, and only the rest need the search.
        xy = state.pos[r, who[r]].astype(np.int32)
        g = setup.grid
        nx = _span(xy[:, 0], g.width)
        ny = _span(xy[:, 1], g.height)
        centre = (xy[:, 0] >= 0) & (xy[:, 0] < g.width) & (xy[:, 1] >= 0) & (xy[:, 1] < g.height)
        sure = nx * ny - centre > state.pos.shape[1] - 1
        out[r[sure]] = True
        rest = r[~sure]
        if len(rest):
            out[rest] = _free(setup, state, who[rest], rest).any(axis=1)
    return out


def _span(v: np.ndarray, size: int) -> np.ndarray:
    """How many of v-1, v, v+1 lie in [0, size)."""
    return ((v >= 1) & (v <= size)).astype(np.int32) + ((v >= 0) & (v < size)) + ((v >= -1) & (v < size - 1))


def _free(setup, state, who: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(K, 8) free cells around who[k] in state row rows[k]."""
    pos = state.pos[rows]
    cells = pos[np.arange(len(rows)), who][:, None, :] + BF.NEIGHBOURS[None]
    g = setup.grid
    inside = (cells[..., 0] >= 0) & (cells[..., 0] < g.width) & (cells[..., 1] >= 0) & (cells[..., 1] < g.height)
    # One int per cell (unique up to one step outside the grid) instead of x and y pairs.
    code = lambda xy: (xy[..., 0].astype(np.int32) + 1) * (g.height + 2) + (xy[..., 1] + 1)
    blockers = np.where(state.status[rows] == STANDING, code(pos), -1)
    codes = code(cells)
    # A loop over the few combatants beats an (m, 8, C) temporary reduced over its short axis.
    taken = codes == blockers[:, :1]
    for j in range(1, blockers.shape[1]):
        taken |= codes == blockers[:, j:j + 1]
    return inside & ~taken


def dodge_step(setup, state, who: np.ndarray, rows: np.ndarray, noise: np.ndarray) -> None:
    """Move who[n] to a free neighbouring cell (the first by noise) where rows[n]."""
    if state.pos is None or not rows.any():
        return
    r = np.flatnonzero(rows)
    free = _free(setup, state, who[r], r)
    pick = np.where(free, noise[r, :8], -1.0).argmax(axis=1)
    ok = free.any(axis=1)
    r, pick = r[ok], pick[ok]
    state.pos[r, who[r]] += BF.NEIGHBOURS[pick].astype(np.int16)
    _moved(setup, state, r)


def approach(setup, state, movers: np.ndarray, target: np.ndarray, allowance: np.ndarray,
             stop_within: np.ndarray) -> np.ndarray:
    """Move (N, C) movers toward (N, C) targets; returns cells moved (N, C)."""
    if state.pos is None or not movers.any():
        return np.zeros(movers.shape, dtype=np.int32)
    # Only the rows where somebody moves go through the (cell-by-cell) walk.
    r = np.flatnonzero(movers.any(axis=1))
    pos, moved_r = BF.step_toward(state.pos[r], setup.grid, movers[r], target[r], allowance[r],
                                  state.status[r] == STANDING, stop_within[r], setup.grid.metric)
    state.pos[r] = pos.astype(np.int16)
    moved = np.zeros(movers.shape, dtype=np.int32)
    moved[r] = moved_r
    _moved(setup, state, r)
    return moved


def _moved(setup, state, r: np.ndarray) -> None:
    """Distances after rows r moved: only those rows are redone (distances are row by row)."""
    d = state.dist
    if d is None or len(d) != len(state.pos):
        state.dist = None
    elif len(r):
        set_rows(d, r, BF.distances(state.pos[r], setup.grid.metric))


def set_rows(full: np.ndarray, rows: np.ndarray, part: np.ndarray) -> None:
    """full[rows] = part, with each row of a 2-D or 3-D array moved as one opaque item:
    numpy's row-wise fancy assignment walks the short trailing axes element by element
    and is some ten times slower."""
    if full.ndim == 1 or not full.flags.c_contiguous:
        full[rows] = part
        return
    item = np.dtype((np.void, full.itemsize * math.prod(full.shape[1:])))
    n = len(full)
    part = np.ascontiguousarray(part, dtype=full.dtype)
    full.reshape(n, -1).view(item)[:, 0][rows] = part.reshape(len(part), -1).view(item)[:, 0]
