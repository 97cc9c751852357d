"""The round of a core scenario (flag G_CORE): fixed distances, simultaneous resolution,
plain attacks only (no called shots, holds, spells, leading, aiming, multi-action
weapons or scripted rules). It plays exactly what round.play_round plays for such a
scenario, with the same keyed numbers, but leaves out the passes those situations need
(tests/test_gm_kernel.py compares the two skirmish by skirmish).
"""
from __future__ import annotations

from sim import events
from sim.rulesets.base import FLED, STANDING
from sim.rulesets.gods_and_monsters import attacks
from sim.rulesets.gods_and_monsters.damage import apply_and_check, settle_pending
from sim.rulesets.gods_and_monsters.decide import decide_all
from sim.rulesets.gods_and_monsters.round import _constrain, _flee, _modifiers, _start, _target, _update_focus
from sim.rulesets.gods_and_monsters.tables import (
    ATTACKING, C_FIRST_SLOT, EV_ROUND, EV_WAKES_HIT, EV_WITHDRAW, G_CHECK_NOW, G_INJ_ALL, G_SIDES, G_SLEEP_WAKES,
    L_ACTING, L_ATTACKING, L_NOW, L_TARGET, S_ALT, S_OWNER, W_ACTION, W_ASLEEP, W_BLOCKED, W_CAN_ACT, W_CAN_ATTACK,
    W_CAST_LAST, W_DOWN, W_LAST_DEALT, W_LAST_TAKEN, W_PENDING, W_RDEALT, W_RTAKEN, W_STATUS, W_UPSET, W_WHY,
    WITHDRAW)
from sim.jit import once


@once
def play_round_core(seed, g, rnd, W, SL, tab, pol, scratch, tracing, ev, cnt):
    flags, ct, cf, st, sp, pair_mod, close_reach, cell_size = tab
    dist, adj, uses, focus, cand, hbuf, dbuf, obs, stack, seen = scratch
    C = W.shape[1]
    if tracing:
        events.emit(ev, cnt, EV_ROUND, rnd, 0, 0, 0, 0, 0, 0)
    _start(seed, g, rnd, W, ct, flags[G_INJ_ALL], tracing, ev, cnt)
    decide_all(W, SL, ct, cf, st, dist, close_reach, cell_size, flags, rnd, uses, pol, obs, stack, seen)
    _constrain(W, ct)
    _flee(W, rnd, tracing, ev, cnt)
    _update_focus(seed, g, rnd, W, ct, flags[G_SIDES], focus)
    _modifiers(seed, g, rnd, W, ct, flags, tracing, ev, cnt)
    for c in range(C):
        W[W_CAN_ATTACK, c] = W[W_CAN_ACT, c] and ATTACKING[W[W_ACTION, c]]
        W[W_RTAKEN, c], W[W_RDEALT, c], W[W_UPSET, c], W[W_PENDING, c], W[W_BLOCKED, c] = 0, 0, 0, 0, 0
    _attack_slots(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf)
    attacks.resolve(seed, g, rnd, SL[L_NOW], W, SL, ct, st, pair_mod, flags, adj, tracing, ev, cnt)
    apply_and_check(seed, g, rnd, 0, flags[G_CHECK_NOW], W, ct, flags, tracing, ev, cnt)
    if not flags[G_CHECK_NOW]:
        settle_pending(seed, g, rnd, W, ct, flags, tracing, ev, cnt)
    for c in range(C):
        if flags[G_SLEEP_WAKES] and W[W_ASLEEP, c] and W[W_RTAKEN, c] > 0:
            W[W_ASLEEP, c] = 0
            if tracing and W[W_STATUS, c] == STANDING:
                events.emit(ev, cnt, EV_WAKES_HIT, rnd, c, 0, 0, 0, 0, 0)
    for c in range(C):
        if W[W_STATUS, c] == STANDING and W[W_ACTION, c] == WITHDRAW:
            W[W_STATUS, c] = FLED
            W[W_DOWN, c] = rnd
            if tracing:
                events.emit(ev, cnt, EV_WITHDRAW, rnd, c, W[W_WHY, c], 0, 0, 0, 0)
        W[W_CAST_LAST, c] = 0
        W[W_LAST_DEALT, c], W[W_LAST_TAKEN, c] = W[W_RDEALT, c], W[W_RTAKEN, c]


@once
def _attack_slots(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf):
    # Every slot of a combatant who attacks strikes a target in reach; of alternative
    # weapons only the first that reaches one (round._slots with one-action weapons).
    used = False
    for a in range(SL.shape[1]):
        o = st[S_OWNER, a]
        if a == ct[C_FIRST_SLOT, o]:
            used = False
        t = -1
        if W[W_CAN_ATTACK, o] and not (st[S_ALT, a] and used):
            t = _target(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf, False, a)
        used |= t >= 0
        SL[L_TARGET, a] = t
        SL[L_ACTING, a] = t >= 0
        SL[L_ATTACKING, a] = t >= 0
        SL[L_NOW, a] = t >= 0
