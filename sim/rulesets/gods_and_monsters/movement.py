"""Gods & Monsters on the battlefield: who moves where at the start of a round.

Distances are fixed for the whole fight when nobody can ever need to move; otherwise
combatants close on their target, kite or withdraw (sim/battlefield.py does the walking).
"""
from __future__ import annotations

import numpy as np

from sim import battlefield as bf
from sim.policy import TARGET_MODES, choose_targets
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters.lastaxis import any_last, argmin_last, min_last

RANDOM, NEAREST = TARGET_MODES.index("random"), TARGET_MODES.index("nearest")
AUTO, ADVANCE, HOLD_GROUND, KITE, WITHDRAW = range(len(S.MOVES))


def static_distances(layout, grid, enemy, max_reach, move_mode):
    """Distances fixed for the whole fight, or None.

    When every combatant starts with every enemy in reach, nobody kites or withdraws
    and nobody is scattered at random, no one ever moves (enemies only fall), so the
    battlefield costs nothing per round: the classic melee scenarios stay as fast as
    they were before positions existed.
    """
    if layout.scatter_sides or ((move_mode == KITE) | (move_mode == WITHDRAW)).any():
        return None
    dist = bf.distances(layout.static[None], grid.metric)[0]
    if (enemy & (dist > max_reach[:, None])).any():
        return None
    return dist


def move(setup, state, standing, may_act, target_mode, noise, t) -> np.ndarray:
    """Movement at the start of the round; returns the (N, C, C) distances after it.

    Combatants with an enemy already in reach stay put (unless kiting or withdrawing);
    the others close on their target: the nearest enemy under random targeting, else
    the one their targeting mode picks.
    """
    metric = setup.grid.metric
    # Only this function moves anyone, so the distances left by last round's movement
    # still hold (state.dist is compacted with the other state arrays).
    dist = state.dist if state.dist is not None else bf.distances(state.pos, metric)
    state.dist = dist
    if not setup.may_move:
        return dist
    enemies = standing[:, None, :] & setup.enemy[None]
    enemy_dist = np.where(enemies, dist, bf.FAR)
    nearest_d = min_last(enemy_dist)
    in_reach = nearest_d <= setup.max_reach[None, :]
    mode = setup.move_mode[None, :]
    away = may_act & (((mode == KITE) & (nearest_d < setup.kite_cells[None, :])) | (mode == WITHDRAW))
    close = may_act & ~in_reach & ((mode == ADVANCE) | (mode == KITE)) & ~away & (nearest_d < bf.FAR)
    if not (close.any() or away.any()):
        return dist
    before = state.pos
    pos = state.pos
    allowance = np.broadcast_to(setup.move_cells, standing.shape)
    if close.any():
        modes = np.where(target_mode == RANDOM, NEAREST, target_mode)
        focus = state.focus[:, setup.side] if setup.uses_focus else None
        health = (state.verve + state.survival).astype(np.float32)
        goal = choose_targets(modes, enemies, health, focus, noise[:, setup.first_slot, :], dist)
        stop = np.broadcast_to(setup.max_reach, standing.shape)
        pos, _ = bf.step_toward(pos, setup.grid, close, goal, allowance, standing, stop, metric)
    if away.any():
        threat = argmin_last(enemy_dist)
        pos, _ = bf.step_away(pos, setup.grid, away, threat, allowance, standing, metric)
    state.pos = pos
    if t:
        for c in np.flatnonzero((pos[t.pos] != before[t.pos]).any(axis=1)):
            t.line(f"{t.name(c)} moves to ({pos[t.pos, c, 0]}, {pos[t.pos, c, 1]}).")
        trace_map(t, setup, state, standing)
    # Distances change only in the skirmishes where somebody moved.
    moved = np.flatnonzero(any_last((pos != before).reshape(len(pos), -1)))
    if len(moved) == len(pos):
        dist = bf.distances(pos, metric)
    elif len(moved):
        dist = dist.copy()
        dist[moved] = bf.distances(pos[moved], metric)
    state.dist = dist
    return dist


def trace_map(t, setup, state, standing) -> None:
    labels = [n[0].upper() if setup.side[i] == 0 else n[0].lower() for i, n in enumerate(setup.names)]
    drawing = bf.text_map(state.pos[t.pos], labels, standing[t.pos], setup.grid)
    if drawing:
        t.line(drawing)
