"""Decisions: what each combatant does this round, from its policy's family and scripted rules.

The family's parameters (fleeing, withdrawing, routing, leading, covering, casting)
choose first; a scripted rule whose condition holds overrides them. Observations are
what scripted conditions may test.
"""
from __future__ import annotations

import numpy as np

from sim import battlefield as bf
from sim.policy import LazyObservations
from sim.rulesets.gods_and_monsters import situations
from sim.rulesets.gods_and_monsters.situations import ATTACK, CAST, COVER, FLEE, LEAD, WITHDRAW


def observe(setup, state, c: int, standing: np.ndarray, shared: dict | None = None) -> LazyObservations:
    """What combatant `c`'s scripted conditions may test, each made on first use.

    `shared` caches what every combatant's observations derive from (distances between
    all pairs) for one decision round.
    """
    shared = {} if shared is None else shared
    n = state.status.shape[0]
    start = setup.verve[c] + setup.survival[c]
    same = setup.side == setup.side[c]
    situation = lambda: _once(shared, ("situation", c), lambda: _situation_observations(setup, state, c, standing,
                                                                                          shared))
    makers = {
        "round": lambda: np.full(n, state.round),
        "health": lambda: (state.verve[:, c] + state.survival[:, c]) / start,
        "survival": lambda: state.survival[:, c],
        "verve": lambda: state.verve[:, c],
        "injuries": lambda: state.injuries[:, c],
        "surprised": lambda: state.surprised[:, c].astype(np.int8),
        "allies_standing": lambda: standing[:, same].sum(axis=1),
        "enemies_standing": lambda: standing[:, ~same].sum(axis=1),
        "took_damage": lambda: state.last_taken[:, c],
        "dealt_damage": lambda: state.last_dealt[:, c],
        "nearest_enemy": lambda: _once(shared, "nearest", lambda: _nearest_enemy_cells(setup, state, standing))[:, c]
        * setup.grid.cell_size,
    }
    for key in SITUATION_OBSERVATIONS:
        makers[key] = lambda key=key: situation()[key]
    return LazyObservations(makers)


SITUATION_OBSERVATIONS = ("in_close_combat", "spells_left", "weapon_ready", "held", "holding",
                          "enemies_immobile", "enemies_casting")


def _once(shared: dict, key, make):
    if key not in shared:
        shared[key] = make()
    return shared[key]


def _situation_observations(setup, state, c: int, standing: np.ndarray, shared: dict) -> dict:
    n = state.status.shape[0]
    zero = np.zeros(n, dtype=np.int32)
    sx = setup.sx
    dist = _once(shared, "chebyshev", lambda: bf.distances(state.pos, "chebyshev"))[:, c, :]
    reach = sx.close_reach[c][None, :] if sx is not None else 1
    close = (standing & setup.enemy[c][None, :] & (dist <= reach)).any(axis=1).astype(np.int8)
    if sx is None:
        return {"in_close_combat": close, "spells_left": zero, "weapon_ready": zero + 1, "held": zero,
                "holding": zero, "enemies_immobile": zero, "enemies_casting": zero}
    mine = np.flatnonzero(sx.spell_owner == c)
    left = np.minimum(state.spell_uses[:, mine].sum(axis=1), 1000) if len(mine) else zero
    multi = np.flatnonzero((setup.slot_owner == c) & (sx.slot_actions > 1))
    ready = (state.loaded[:, multi[0]] >= sx.slot_actions[multi[0]] - 1).astype(np.int8) if len(multi) else zero + 1
    held = np.where(state.bound[:, c], 3, state.held[:, c])
    enemies = standing & setup.enemy[c][None, :]
    immobile = state.asleep | state.bound | (state.held == situations.HELD_IMMOBILIZED)
    return {"in_close_combat": close, "spells_left": left, "weapon_ready": ready, "held": held,
            "holding": (state.holding[:, c] >= 0).astype(np.int8),
            "enemies_immobile": (enemies & immobile).sum(axis=1),
            "enemies_casting": (enemies & state.cast_last).sum(axis=1)}


def _nearest_enemy_cells(setup, state, standing: np.ndarray) -> np.ndarray:
    dist = bf.distances(state.pos, setup.grid.metric)
    return np.where(standing[:, None, :] & setup.enemy[None], dist, bf.FAR).min(axis=2)


def decide(setup, state, standing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Action and target mode per (skirmish, combatant): the family's choice, then scripted rules."""
    # Health is never negative, so only combatants with flee_below > 0 can flee by it.
    morale = np.flatnonzero(setup.flee_below > 0)
    flee = np.zeros(standing.shape, dtype=bool)
    if len(morale):
        health = (state.verve[:, morale] + state.survival[:, morale]) / (setup.verve + setup.survival)[morale]
        flee[:, morale] = (health < setup.flee_below[morale]) & standing[:, morale]
    if setup.flee_after_bad_round.any() and state.round > 1:
        bad = (state.last_taken > 0) & (state.last_dealt == 0)
        flee |= bad & setup.flee_after_bad_round[None, :] & standing
    action = np.where(flee, np.int8(FLEE), np.int8(ATTACK))
    target = np.broadcast_to(setup.default_target, action.shape).copy()
    shared: dict = {}
    for c in setup.scripted:
        a, m = setup.policies[c].decide(observe(setup, state, c, standing, shared), action[:, c])
        action[:, c], target[:, c] = a, m
    return action, target


def decide_situations(setup, state, standing):
    """The family's choices (morale, leading, covering, casting), then scripted rules."""
    sx = setup.sx
    health = (state.verve + state.survival) / (setup.verve + setup.survival)[None, :]
    flee = (health < setup.flee_below[None, :]) & standing
    if setup.flee_after_bad_round.any() and state.round > 1:
        bad = (state.last_taken > 0) & (state.last_dealt == 0)
        flee |= bad & setup.flee_after_bad_round[None, :] & standing
    action = np.where(flee, FLEE, ATTACK).astype(np.int8)
    free = action == ATTACK
    if sx.morale:
        share = np.zeros_like(health)
        for s in range(setup.n_sides):
            mine = setup.side == s
            share[:, mine] = (standing[:, mine].sum(axis=1) / mine.sum())[:, None]
        action[free & standing & (share < sx.rout_below[None, :])] = FLEE
        action[free & standing & (health < sx.withdraw_below[None, :]) & (action == ATTACK)] = WITHDRAW
        free = action == ATTACK
    if sx.leading:
        action[free & sx.lead[None, :]] = LEAD
        free = action == ATTACK
    if sx.aim:
        action[free & sx.cover_aim[None, :] & (state.covering < 0)] = COVER
        free = action == ATTACK
    if sx.spells:
        has = np.zeros_like(standing)
        for s, c in enumerate(sx.spell_owner):
            has[:, c] |= state.spell_uses[:, s] > 0
        action[free & has & sx.cast[None, :]] = CAST
    target = np.broadcast_to(setup.default_target, action.shape).copy()
    shared: dict = {}
    for c in setup.scripted:
        a, m = setup.policies[c].decide(observe(setup, state, c, standing, shared), action[:, c])
        action[:, c], target[:, c] = a, m
    return action, target
