"""Immobilizing: the grab, the Fortitude contests of a hold, tying up, and releasing holds."""
from __future__ import annotations

import numpy as np

from sim.rulesets.base import STANDING
from sim.rulesets.gods_and_monsters import engine as E
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters.situations import HELD_GRABBED, HELD_IMMOBILIZED, HELD_NONE, K_GRAB


def grabs(setup, state, rows, targets, kind, hit, ev, injury_pen, t) -> None:
    """A grab that hits: the target rolls Evasion (+2 per size level larger), else is held."""
    sx = setup.sx
    owner = setup.slot_owner
    tgt = np.maximum(targets, 0)
    larger = np.maximum(sx.size[tgt] - sx.size[owner][None, :], 0)
    dodge = ev[:, :, 1] <= sx.evasion[tgt] + S.GRAB_EVASION_PER_SIZE * larger - injury_pen[rows, tgt]
    caught = hit & (kind == K_GRAB) & ~dodge
    for a in np.flatnonzero(caught.any(axis=0)):
        c = owner[a]
        rs = np.flatnonzero(caught[:, a] & (state.held[np.arange(len(tgt)), tgt[:, a]] == HELD_NONE)
                            & (state.holding[:, c] < 0))
        state.held[rs, tgt[rs, a]] = HELD_GRABBED
        state.held_by[rs, tgt[rs, a]] = c
        state.holding[rs, c] = tgt[rs, a]
    if t:
        p = t.pos
        for a in np.flatnonzero(hit[p] & (kind[p] == K_GRAB)):
            t.line(f"  {t.name(tgt[p, a])} rolls Evasion {ev[p, a, 1]} against "
                   f"{sx.evasion[tgt[p, a]] + S.GRAB_EVASION_PER_SIZE * larger[p, a] - injury_pen[p, tgt[p, a]]}: "
                   + ("slips the grab." if dodge[p, a] else f"{t.name(owner[a])} has hold of it."))


def hold_contests(setup, state, pre_held, on_held, crow, injury_pen, damage, x_health, x_death, rnd, t,
                   last_taken, last_dealt) -> None:
    """One Fortitude contest a round for every hold made in an earlier round."""
    sx = setup.sx
    n, C = state.held.shape
    # Holds made this round are first contested next round.
    held = pre_held & (state.held > HELD_NONE) & (state.status == STANDING)
    holder = np.maximum(state.held_by, 0).astype(np.intp)
    held &= np.take_along_axis(state.status == STANDING, holder, axis=1)
    if not held.any():
        return
    diff = sx.size[None, :] - sx.size[holder]
    weapon = np.take_along_axis(on_held, holder, axis=1)
    penalty = S.IMMOBILIZED_BREAK_PENALTY * ((state.held == HELD_IMMOBILIZED) & ~weapon)
    t_ok = crow[:, :, 1] <= setup.fortitude[None, :] + S.HOLD_FORTITUDE_PER_SIZE * np.maximum(diff, 0) \
        - penalty - injury_pen
    h_roll = np.take_along_axis(crow[:, :, 1], holder, axis=1)
    h_ok = h_roll <= setup.fortitude[holder] + S.HOLD_FORTITUDE_PER_SIZE * np.maximum(-diff, 0) \
        - np.take_along_axis(injury_pen, holder, axis=1)
    broken = held & t_ok & ~h_ok
    pinned = held & ~t_ok & h_ok
    state.held[pinned] = HELD_IMMOBILIZED
    if t:
        p = t.pos
        for c in np.flatnonzero(held[p]):
            h = holder[p, c]
            t.line(f"{t.name(c)} strains against {t.name(h)}'s hold (Fortitude {crow[p, c, 1]} against "
                   f"{setup.fortitude[c] + 4 * max(diff[p, c], 0) - penalty[p, c] - injury_pen[p, c]}, "
                   f"holder {h_roll[p, c]} against "
                   f"{setup.fortitude[h] + 4 * max(-diff[p, c], 0) - injury_pen[p, h]}): "
                   + ("breaks free and strikes back." if broken[p, c] else "is immobilized." if pinned[p, c]
                      else "neither gives way."))
    if broken.any():
        # "The target has broken the hold, and does an automatically successful attack."
        first = setup.first_slot
        blow = np.where(broken, damage[:, first], 0)
        hurt = np.zeros((n, C), dtype=np.int32)
        np.add.at(hurt, (np.nonzero(broken)[0], holder[broken]), blow[broken])
        state.dealt += blow
        state.taken += hurt
        last_dealt += blow
        last_taken += hurt
        owed = E._apply_damage(setup, state, hurt, t)
        E._health_checks(setup, state, owed, x_health[:, :, 1], None if x_death is None else x_death[:, :, 1],
                         rnd, t)
        state.held[broken] = HELD_NONE
        state.held_by[broken] = -1
        state.holding[np.nonzero(broken)[0], holder[broken]] = -1


def tie_up(setup, state, tying, adj, t) -> None:
    if not tying.any():
        return
    n, C = tying.shape
    immob = (state.held == HELD_IMMOBILIZED) & (state.status == STANDING)
    near = adj & immob[:, None, :] & tying[:, :, None]
    tied = near.any(axis=1)
    state.bound |= tied
    rs, cs = np.nonzero(tied)
    state.holding[rs, np.maximum(state.held_by[rs, cs], 0)] = -1
    state.held[tied] = HELD_NONE
    state.held_by[tied] = -1
    if t:
        for c in np.flatnonzero(tied[t.pos]):
            t.line(f"{t.name(c)} is tied up.")


def release(state, standing) -> None:
    """Holds end when the holder or the held falls or leaves."""
    holder = np.maximum(state.held_by, 0).astype(np.intp)
    gone = (state.held > HELD_NONE) & (~standing | ~np.take_along_axis(standing, holder, axis=1))
    if gone.any():
        rs, cs = np.nonzero(gone)
        state.holding[rs, holder[rs, cs]] = -1
        state.held[gone] = HELD_NONE
        state.held_by[gone] = -1
    loose = (state.holding >= 0) & ~standing
    if loose.any():
        rs, cs = np.nonzero(loose)
        state.held[rs, state.holding[rs, cs]] = HELD_NONE
        state.held_by[rs, state.holding[rs, cs]] = -1
        state.holding[loose] = -1
