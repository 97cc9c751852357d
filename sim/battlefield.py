"""The battlefield shared by every ruleset: a square grid, positions, distance, movement.

Positions are int16 arrays shaped (skirmishes, combatants, 2) holding (x, y) cells.
Every helper works on the whole batch at once; movement loops only over combatants and
over the cells of one move (both small), so two standing combatants never end up in
one cell. Fallen combatants (unconscious, dead, fled) do not block: callers pass
`blocking` = standing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

METRICS = ("chebyshev", "alternating", "manhattan")

# Orthogonal neighbours first, so ties between equally good cells prefer straight steps.
NEIGHBOURS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)], dtype=np.int16)
_DIAGONAL = np.array([False] * 4 + [True] * 4)

FAR = 1 << 20  # distance to "no target"


@dataclass(frozen=True)
class Grid:
    width: int
    height: int
    cell_size: float
    unit: str
    metric: str = "chebyshev"

    def cells(self, length) -> int:
        """A length in the ruleset's unit as whole cells (rounded up; anything positive is at least 1)."""
        if length is None or length <= 0:
            return 0
        return max(1, math.ceil(length / self.cell_size - 1e-9))

    def feet(self, cells) -> float:
        return cells * self.cell_size


def _metric(dx, dy, metric: str):
    dx, dy = np.abs(dx), np.abs(dy)
    if metric == "chebyshev":
        return np.maximum(dx, dy)
    if metric == "manhattan":
        return dx + dy
    # 1-2-1: every second diagonal step costs two cells.
    return np.maximum(dx, dy) + np.minimum(dx, dy) // 2


def distances(pos: np.ndarray, metric: str = "chebyshev") -> np.ndarray:
    """(N, C, C) distances in cells between every pair."""
    p = pos.astype(np.int32)
    d = p[:, :, None, :] - p[:, None, :, :]
    return _metric(d[..., 0], d[..., 1], metric)


def distance_to(pos: np.ndarray, target: np.ndarray, metric: str = "chebyshev") -> np.ndarray:
    """(N, C) distance from each combatant to its target (FAR where target is -1)."""
    tpos = np.take_along_axis(pos, np.maximum(target, 0)[..., None].astype(np.intp), axis=1)
    d = (pos.astype(np.int32) - tpos.astype(np.int32))
    return np.where(target >= 0, _metric(d[..., 0], d[..., 1], metric), FAR)


def adjacent(pos: np.ndarray) -> np.ndarray:
    """(N, C, C): in one of the eight cells around (never oneself)."""
    return distances(pos, "chebyshev") == 1


def within(pos: np.ndarray, reach, metric: str = "chebyshev") -> np.ndarray:
    """(N, C, C): [n, i, j] is true when j is within reach[i] cells of i (not i itself)."""
    d = distances(pos, metric)
    r = np.asarray(reach)
    r = r[None, :, None] if r.ndim == 1 else r[:, :, None]
    c = pos.shape[1]
    return (d <= r) & ~np.eye(c, dtype=bool)[None]


def _occupied(cells: np.ndarray, pos: np.ndarray, blocking: np.ndarray, me: int) -> np.ndarray:
    """cells (N, K, 2) -> (N, K): a blocking combatant other than `me` stands there."""
    same = (cells[:, :, None, 0] == pos[:, None, :, 0]) & (cells[:, :, None, 1] == pos[:, None, :, 1])
    others = blocking.copy()
    others[:, me] = False
    return (same & others[:, None, :]).any(axis=2)


def _inside(cells: np.ndarray, grid: Grid) -> np.ndarray:
    return (cells[..., 0] >= 0) & (cells[..., 0] < grid.width) & (cells[..., 1] >= 0) & (cells[..., 1] < grid.height)


def free_neighbours(pos: np.ndarray, blocking: np.ndarray, grid: Grid) -> np.ndarray:
    """(N, C, 8): which of the NEIGHBOURS cells are inside the grid and not blocked."""
    n, c, _ = pos.shape
    out = np.zeros((n, c, len(NEIGHBOURS)), dtype=bool)
    for i in range(c):
        cells = pos[:, i, None, :] + NEIGHBOURS[None]
        out[:, i] = _inside(cells, grid) & ~_occupied(cells, pos, blocking, i)
    return out


def direction_to(pos: np.ndarray, target: np.ndarray) -> np.ndarray:
    """(N, C, 2) sign of the offset from each combatant toward its target (charges)."""
    tpos = np.take_along_axis(pos, np.maximum(target, 0)[..., None].astype(np.intp), axis=1)
    return np.where(target[..., None] >= 0, np.sign(tpos.astype(np.int32) - pos), 0).astype(np.int8)


SIDESTEPS = 3  # equal-distance steps a mover may take to get round a blocker

_NX = NEIGHBOURS[:, 0].astype(np.int32)
_NY = NEIGHBOURS[:, 1].astype(np.int32)
# Toward a goal a cell scores (grid distance) * _TIE + squared straight-line distance: the
# straight line only breaks ties between cells of equal grid distance (integers, so no
# rounding; grids are at most 2,000 cells wide). An unusable cell scores _NEVER.
_TIE = 10_000
_NEVER = np.iinfo(np.int32).max
_TABLE_LIMIT = 1 << 22  # entries; larger grids compute scores instead of looking them up


@lru_cache(maxsize=32)
def _walk_tables(width: int, height: int, metric: str, away: bool):
    """Lookup tables for the walk on one grid, or None when the grid is too large.

    Cells are keyed (x + 1) * (height + 2) + (y + 1), which covers the ring just off the
    grid, so `inside[key]` replaces four comparisons. Offsets (cell - goal) are keyed
    (dx + width) * (2 height + 1) + (dy + height); `score[key]` is the cell's score.
    """
    if (2 * width + 1) * (2 * height + 1) > _TABLE_LIMIT:
        return None
    inside = np.zeros((width + 2, height + 2), dtype=bool)
    inside[1:-1, 1:-1] = True
    dx = np.arange(-width, width + 1, dtype=np.int32)[:, None]
    dy = np.arange(-height, height + 1, dtype=np.int32)[None, :]
    m = _metric(dx, dy, metric)
    score = -m if away else m * _TIE + dx * dx + dy * dy
    cell_off = (_NX * (height + 2) + _NY).astype(np.intp)
    offset_off = (_NX * (2 * height + 1) + _NY).astype(np.intp)
    return inside.ravel(), cell_off, score.astype(np.int32).ravel(), offset_off


def _move(pos, grid, movers, allowance, blocking, metric, goal, stop_within, away):
    """Shared walk: each mover in turn takes the best-scoring free neighbour while it improves.

    Toward a goal the score of a cell is its grid distance to the goal with the
    straight-line distance as tie-break (lower is better), and a mover is done within
    `stop_within`; away from a threat it is minus the grid distance. When no neighbour
    improves, a mover may sidestep to an equally distant cell (not back where it came
    from) up to SIDESTEPS times, which gets it round a comrade standing in the way.

    Only the rows where mover i has a budget are walked, and a row leaves the walk as
    soon as it stops: nothing in it can change afterwards (its mover is the only one
    moving and it stood still), so the long tail of steps costs only the rows still going.
    """
    pos = pos.copy()
    n, c, _ = pos.shape
    moved = np.zeros((n, c), dtype=np.int32)
    budget_all = np.where(movers, allowance, 0)
    if not (budget_all > 0).any():
        return pos, moved
    blocking = np.asarray(blocking, dtype=bool)
    goal = np.maximum(goal, 0)
    width, height = grid.width, grid.height
    kh = height + 2  # cell key (x + 1) * kh + (y + 1), as in _walk_tables
    tables = _walk_tables(width, height, metric, away)
    cell_off = (_NX * kh + _NY).astype(np.intp)
    for i in range(c):
        rows = np.flatnonzero(budget_all[:, i] > 0)
        if not len(rows):
            continue
        p = pos[rows].astype(np.int32)  # (k, C, 2), fixed while i walks (except i itself)
        blockers = np.where(blocking[rows], (p[..., 0] + 1) * kh + (p[..., 1] + 1), -1)
        blockers[:, i] = -1
        g = goal[rows, i]
        k = len(rows)
        tx, ty = p[np.arange(k), g].T
        self_goal = g == i
        within_i = None if away else np.broadcast_to(stop_within, movers.shape)[rows, i]
        x, y = p[:, i, 0].copy(), p[:, i, 1].copy()
        prev_key = (x + 1) * kh + (y + 1)
        budget = budget_all[rows, i].astype(np.int32)
        sidesteps = np.full(k, SIDESTEPS, dtype=np.int32)
        diag_used = np.zeros(k, dtype=np.int32)
        spent_all = np.zeros(k, dtype=np.int32)
        out_x, out_y = x.copy(), y.copy()  # final cells of the k rows
        sel = np.arange(k)  # which of the k rows are still walking
        while True:
            if self_goal.any():
                tx, ty = np.where(self_goal, x, tx), np.where(self_goal, y, ty)
            dx0, dy0 = x - tx, y - ty
            m = _metric(dx0, dy0, metric)
            if away:
                here = -m
                keep = budget > 0
            else:
                here = m * _TIE + dx0 * dx0 + dy0 * dy0
                keep = (budget > 0) & (m > within_i)
            if not keep.all():
                sel, x, y, tx, ty, dx0, dy0, here, budget, sidesteps, diag_used, prev_key, blockers, self_goal = (
                    a[keep] for a in (sel, x, y, tx, ty, dx0, dy0, here, budget, sidesteps, diag_used, prev_key,
                                      blockers, self_goal))
                if not away:
                    within_i = within_i[keep]
                if not len(sel):
                    break
            key = ((x + 1) * kh + (y + 1))[:, None] + cell_off  # (k, 8)
            if tables is not None:
                ok = tables[0].take(key)
            else:
                cx, cy = x[:, None] + _NX, y[:, None] + _NY
                ok = (cx >= 0) & (cx < width) & (cy >= 0) & (cy < height)
            ok &= key != prev_key[:, None]
            for j in range(c):
                col = blockers[:, j]
                if j != i and (col >= 0).any():
                    ok &= key != col[:, None]
            cost = None
            if metric != "chebyshev":
                cost = np.ones((len(sel), len(NEIGHBOURS)), dtype=np.int32)
                if metric == "manhattan":
                    cost[:, _DIAGONAL] = 2  # a diagonal is two orthogonal steps
                else:
                    cost[:, _DIAGONAL] = np.where(diag_used % 2 == 1, 2, 1)[:, None]
                ok &= cost <= budget[:, None]
            if tables is not None:
                raw = tables[2].take(((dx0 + width) * (2 * height + 1) + (dy0 + height))[:, None] + tables[3])
            else:
                dx, dy = dx0[:, None] + _NX, dy0[:, None] + _NY
                cm = _metric(dx, dy, metric)
                raw = -cm if away else cm * _TIE + dx * dx + dy * dy
            score = np.where(ok, raw, _NEVER)
            best = score.argmin(axis=1)
            best_score = np.take_along_axis(score, best[:, None], axis=1)[:, 0]
            better = best_score < here
            # A sidestep keeps the grid distance (the tie-break may change).
            level = best_score == here if away else best_score // _TIE == here // _TIE
            side = ~better & level & (best_score != _NEVER) & (sidesteps > 0)
            go = better | side
            if not go.all():
                sel, x, y, tx, ty, budget, sidesteps, diag_used, blockers, self_goal, best, side = (
                    a[go] for a in (sel, x, y, tx, ty, budget, sidesteps, diag_used, blockers, self_goal, best, side))
                if not away:
                    within_i = within_i[go]
                if cost is not None:
                    cost = cost[go]
                if not len(sel):
                    break
            prev_key = (x + 1) * kh + (y + 1)
            x, y = x + _NX[best], y + _NY[best]
            out_x[sel], out_y[sel] = x, y
            spent = 1 if cost is None else np.take_along_axis(cost, best[:, None], axis=1)[:, 0]
            budget = budget - spent
            spent_all[sel] += spent
            diag_used = diag_used + _DIAGONAL[best]
            sidesteps = sidesteps - side
        pos[rows, i, 0], pos[rows, i, 1] = out_x, out_y
        moved[rows, i] = spent_all
    return pos, moved


def step_toward(pos, grid: Grid, movers, target, allowance, blocking, stop_within, metric: str = "chebyshev"):
    """Approach each mover's target cell by cell, up to `allowance` cells, stopping within
    `stop_within` cells. Blocked cells are routed around simply: each step takes the free
    neighbour closest to the target, and a mover with no closer free cell stops."""
    target = np.asarray(target)
    movers = movers & (target >= 0)
    return _move(pos, grid, movers, allowance, blocking, metric, target, stop_within, away=False)


def step_away(pos, grid: Grid, movers, threat, allowance, blocking, metric: str = "chebyshev"):
    """Back away from each mover's threat, up to `allowance` cells (kiting, withdrawing)."""
    threat = np.asarray(threat)
    movers = movers & (threat >= 0)
    return _move(pos, grid, movers, allowance, blocking, metric, threat, None, away=True)


def move_line(pos, grid: Grid, movers, direction, allowance, blocking):
    """Move straight along `direction` (N, C, 2) up to `allowance` cells; stop before an
    obstacle or the edge (charges)."""
    pos = pos.copy()
    n, c, _ = pos.shape
    moved = np.zeros((n, c), dtype=np.int32)
    direction = np.asarray(direction, dtype=np.int16)
    for i in range(c):
        budget = np.where(movers[:, i] & (direction[:, i] != 0).any(axis=1),
                          allowance[:, i] if np.ndim(allowance) else allowance, 0)
        for _ in range(int(np.max(budget, initial=0))):
            nxt = pos[:, i] + direction[:, i]
            ok = (budget > 0) & _inside(nxt[:, None], grid)[:, 0] & ~_occupied(nxt[:, None], pos, blocking, i)[:, 0]
            if not ok.any():
                break
            pos[ok, i] = nxt[ok]
            budget = np.where(ok, budget - 1, 0)
            moved[:, i] += ok
    return pos, moved


def text_map(pos_row: np.ndarray, labels: list[str], alive: np.ndarray, grid: Grid, max_cells: int = 60) -> str:
    """A small ASCII map (one character per cell) for traces; '' when the grid is too big.

    Standing combatants are shown by the first letter of their label (upper case for the
    first side's letters is the caller's choice), fallen ones as 'x'."""
    xs, ys = pos_row[:, 0], pos_row[:, 1]
    x0, x1 = max(0, int(xs.min()) - 1), min(grid.width - 1, int(xs.max()) + 1)
    y0, y1 = max(0, int(ys.min()) - 1), min(grid.height - 1, int(ys.max()) + 1)
    if x1 - x0 + 1 > max_cells or y1 - y0 + 1 > 30:
        return ""
    rows = [["." for _ in range(x0, x1 + 1)] for _ in range(y0, y1 + 1)]
    for i, (x, y) in enumerate(pos_row):
        ch = labels[i] if alive[i] else "x"
        cell = rows[int(y) - y0][int(x) - x0]
        if cell == "." or (cell == "x" and alive[i]):
            rows[int(y) - y0][int(x) - x0] = ch
    return "\n".join("    " + "".join(r) for r in rows)


def __getattr__(name):
    # Layout lives in sim.formations (it builds on Grid); imported lazily to avoid a cycle.
    if name == "Layout":
        from sim.formations import Layout
        return Layout
    raise AttributeError(name)
