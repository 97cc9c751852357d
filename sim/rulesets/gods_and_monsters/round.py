"""One round of one skirmish, in the order the chapter reads.

Snap out of surprise, wake, decide, flee, draw weapons, move, tie up, lead, choose
spells and targets, called shots ("handled first in a round"), then the other attacks
and spells (one phase, or one per side under sequential resolution), then holds,
tying up, taking aim and withdrawing. W holds the skirmish's combatants (rows named
W_* in tables.py), SL its attack slots.
"""
from __future__ import annotations

import numpy as np

from sim import events, keyed, targeting
from sim.rulesets.base import FLED, STANDING
from sim.rulesets.gods_and_monsters import attacks, holds, moves, spells
from sim.rulesets.gods_and_monsters.damage import apply_and_check, settle_pending
from sim.rulesets.gods_and_monsters.decide import decide_all
from sim.rulesets.gods_and_monsters.schema import (
    IMMOBILIZER_DEFENSE_PENALTY, SURPRISED_DEFENSE_PENALTY, SURPRISED_ROLL_PENALTY)
from sim.rulesets.gods_and_monsters.tables import (
    ATTACK, ATTACKING, C_DEFENSE, C_EVASION, C_FIRST_SLOT, C_HOLD_ATTACK, C_LEVEL, C_NSLOT, C_PERCEPTION, C_QUICK_DRAW,
    C_RELOAD, C_SIDE, C_SNAP_T, C_TIE_UP, C_WARRIOR, CAST, COVER, DRAW_ROLL, EV_AIM, EV_DRAW, EV_FALLS_FIRST, EV_FLEE,
    EV_LEAD, EV_LOAD, EV_MAP, EV_MOVE, EV_POS, EV_LOST_ROUND, EV_ROUND, EV_SNAP, EV_SPELL_DISRUPTED, EV_WAKE,
    EV_WAKES_HIT, EV_WITHDRAW, FLEE, FOCUS_SITE, G_ADJ, G_AIM, G_CALLED, G_HOLDS, G_INTO_MELEE, G_LEAD, G_MULTI,
    G_SPELLS, NEAREST, SLOT_ROLLS, STRONGEST, WEAKEST, L_WORD_ATTACK, L_WORD_DAMAGE, G_CHECK_NOW, G_FIRST_PEN,
    G_INJ_ALL, G_LOSE_ROUND, G_MAY_MOVE, G_PHASES, G_SIDES, G_SLEEP_WAKES, G_USE_NEAREST, HELD_IMMOBILIZED, HELD_NONE,
    HOLD, K_CALLED_PHASE, K_GRAB, K_HOLD_BREAK, L_ACTING, L_ATTACKING, L_FREE_NOW, L_FREE_USED, L_KIND, L_LOADED, L_NOW,
    L_REACHES, L_RELOAD, L_TARGET, L_USABLE, LEAD, LEAD_ROLL, MANEUVER, NORMAL, RELOAD, S_ACTIONS, S_ALT, S_OWNER,
    S_RANGED, S_REACH, SNAP, TIE_UP, W_ACTION, W_ACTIVE, W_AIM_T, W_ASLEEP, W_ATT_PEN, W_BLOCKED, W_BOUND, W_BUSY,
    W_CAN_ACT, W_CAN_ATTACK, W_CAST_LAST, W_CASTING, W_COVERING, W_DEF, W_DOWN, W_DRAWN, W_FIRING, W_FORCED, W_GRABBING,
    W_HELD, W_HOLDING, W_IN_CLOSE, W_INJ, W_LAST_DEALT, W_LAST_TAKEN, W_LED, W_LOST, W_MAY_MOVE, W_MELEE, W_MELEE_N,
    W_MOVED, W_ON_HELD, W_PENDING, W_PRE_HELD, W_PX, W_PY, W_RDEALT, W_ROLL_PEN, W_RTAKEN, W_STAND0, W_STATUS,
    W_SURPRISED, W_SURV, W_TMODE, W_TYING, W_UPSET, W_VERVE, W_WAKE, W_WHY, W_X, W_Y, WITHDRAW)
from sim.jit import once, rule


@once
def play_round(seed, g, rnd, W, SL, tab, pol, scratch, tracing, ev, cnt):
    flags, ct, cf, st, sp, pair_mod, close_reach, cell_size = tab
    dist, adj, uses, focus, cand, hbuf, dbuf, obs, stack, seen = scratch
    C, A = W.shape[1], SL.shape[1]
    if tracing:
        events.emit(ev, cnt, EV_ROUND, rnd, 0, 0, 0, 0, 0, 0)
    _start(seed, g, rnd, W, ct, flags[G_INJ_ALL], tracing, ev, cnt)
    decide_all(W, SL, ct, cf, st, dist, close_reach, cell_size, flags, rnd, uses, pol, obs, stack, seen)
    _constrain(W, ct)
    _flee(W, rnd, tracing, ev, cnt)
    _update_focus(seed, g, rnd, W, ct, flags[G_SIDES], focus)
    _modifiers(seed, g, rnd, W, ct, flags, tracing, ev, cnt)

    if flags[G_MAY_MOVE]:
        _movement(seed, g, rnd, W, flags, ct, dist, focus, cand, hbuf, dbuf, tracing, ev, cnt)
    # (Without movement W_MOVED stays 0 from the skirmish's start.)
    if flags[G_ADJ]:
        # "Characters fighting within hand or extended weapon reach of their opponents are in close combat."
        for c in range(C):
            close = 0
            for j in range(C):
                adj[c, j] = (dist[c, j] <= close_reach[c, j] and ct[C_SIDE, j] != ct[C_SIDE, c]
                             and W[W_STATUS, j] == STANDING)
                close |= adj[c, j]
            W[W_IN_CLOSE, c] = close
        if flags[G_INTO_MELEE]:
            _melees(W, adj)
    if flags[G_ADJ] or flags[G_LEAD]:
        _tying_and_leading(seed, g, rnd, W, ct, adj, tracing, ev, cnt)
    if flags[G_SPELLS]:
        for c in range(C):
            W[W_CASTING, c] = W[W_CAN_ACT, c] and W[W_ACTION, c] == CAST
        spells.choose_spells(seed, g, rnd, W, ct, sp, dist, uses, focus, cand, hbuf, dbuf)
    for c in range(C):
        if W[W_CAN_ACT, c] and W[W_ACTION, c] == CAST and not W[W_CASTING, c]:
            W[W_ACTION, c] = ATTACK
        W[W_CAN_ATTACK, c] = W[W_CAN_ACT, c] and ATTACKING[W[W_ACTION, c]]

    _slots(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf, flags)
    if flags[G_CALLED]:
        attacks.kinds(W, SL, ct, st)
    if flags[G_HOLDS]:
        _grabbing(W, SL, ct, st)
    for c in range(C):
        W[W_RTAKEN, c], W[W_RDEALT, c], W[W_UPSET, c], W[W_PENDING, c], W[W_BLOCKED, c] = 0, 0, 0, 0, 0

    # Called shots first (without them every slot's L_KIND stays NORMAL, as the chunk began).
    any_called = False
    if flags[G_CALLED]:
        for a in range(A):
            SL[L_NOW, a] = SL[L_ATTACKING, a] and SL[L_KIND, a] != NORMAL
            any_called |= SL[L_NOW, a]
    if any_called:
        for c in range(C):
            W[W_STAND0, c] = W[W_STATUS, c] == STANDING
        attacks.resolve(seed, g, rnd, SL[L_NOW], W, SL, ct, st, pair_mod, flags, adj, tracing, ev, cnt)
        holds.grabs(seed, g, rnd, W, SL, ct, st, tracing, ev, cnt)
        apply_and_check(seed, g, rnd, K_CALLED_PHASE, True, W, ct, flags, tracing, ev, cnt)
        for c in range(C):
            cand[c] = W[W_STAND0, c] == 1
        attacks.agility_blocks(seed, g, rnd, W, SL, ct, st, flags, cand)
        for c in range(C):
            if cand[c] and W[W_STATUS, c] != STANDING:
                if W[W_BLOCKED, c]:
                    W[W_CAN_ATTACK, c], W[W_CASTING, c] = 0, 0
                if tracing:
                    events.emit(ev, cnt, EV_FALLS_FIRST, rnd, c, W[W_BLOCKED, c], 0, 0, 0, 0)

    _phases(seed, g, rnd, W, SL, tab, dist, uses, focus, cand, hbuf, dbuf, adj, tracing, ev, cnt)
    _after(seed, g, rnd, W, SL, ct, st, flags, adj, tracing, ev, cnt)
    for c in range(C):
        W[W_CAST_LAST, c] = W[W_CASTING, c]
        W[W_LAST_DEALT, c], W[W_LAST_TAKEN, c] = W[W_RDEALT, c], W[W_RTAKEN, c]


@once
def _movement(seed, g, rnd, W, flags, ct, dist, focus, cand, hbuf, dbuf, tracing, ev, cnt):
    # Aiming, leading and withdrawing combatants do not close in.
    C = W.shape[1]
    for c in range(C):
        a = W[W_ACTION, c]
        W[W_MAY_MOVE, c] = (W[W_CAN_ACT, c] and a != HOLD and a != COVER and a != LEAD and a != WITHDRAW
                            and W[W_HOLDING, c] < 0)
        W[W_PX, c], W[W_PY, c] = W[W_X, c], W[W_Y, c]
    moves.move_all(seed, g, rnd, W, flags, ct, dist, focus, cand, hbuf, dbuf)
    moved = 0
    for c in range(C):
        W[W_MOVED, c] = W[W_X, c] != W[W_PX, c] or W[W_Y, c] != W[W_PY, c]
        moved |= W[W_MOVED, c]
        if tracing and W[W_MOVED, c]:
            events.emit(ev, cnt, EV_MOVE, rnd, c, W[W_X, c], W[W_Y, c], 0, 0, 0)
    if tracing and moved:
        emit_map(W, rnd, ev, cnt)


@rule
def _start(seed, g, rnd, W, ct, inj_all, tracing, ev, cnt):
    C = W.shape[1]
    zero = np.uint64(0)
    b, w = -1, (zero, zero, zero, zero)
    for c in range(C):
        pen = W[W_INJ, c] if inj_all else 0
        # Snapping out of surprise, at the start of every round after the first: a blocked
        # site, combatant c's roll number c (one evaluation for four combatants).
        if rnd > 1 and W[W_SURPRISED, c]:
            if c // 4 != b:
                b = c // 4
                w = keyed.block(seed, g, rnd, SNAP, 0, b)
            r = keyed.die_word(w[c % 4], 20, seed, g, rnd, SNAP, 0, c)
            snapped = r <= ct[C_SNAP_T, c] - pen
            if tracing and W[W_STATUS, c] == STANDING:
                events.emit(ev, cnt, EV_SNAP, rnd, c, r, ct[C_SNAP_T, c] - pen, int(snapped), 0, 0)
            if snapped:
                W[W_SURPRISED, c] = 0
    for c in range(C):
        pen = W[W_INJ, c] if inj_all else 0
        W[W_ROLL_PEN, c] = pen + (SURPRISED_ROLL_PENALTY * W[W_SURPRISED, c] if rnd > 1 else 0)
        if W[W_ASLEEP, c] and W[W_WAKE, c] <= rnd:
            W[W_ASLEEP, c] = 0
            if tracing:
                events.emit(ev, cnt, EV_WAKE, rnd, c, 0, 0, 0, 0, 0)
        W[W_PRE_HELD, c] = W[W_HELD, c] > HELD_NONE


@rule
def _constrain(W, ct):
    """Who cannot act at all, who may not start a maneuver, and what holders do."""
    C = W.shape[1]
    for c in range(C):
        W[W_FORCED, c] = 0
        if W[W_STATUS, c] != STANDING:
            continue
        if W[W_ASLEEP, c] or W[W_BOUND, c] or W[W_HELD, c] > HELD_NONE:
            W[W_ACTION, c] = HOLD
        if W[W_SURPRISED, c] and MANEUVER[W[W_ACTION, c]]:
            W[W_ACTION, c] = ATTACK
        t = W[W_HOLDING, c]
        if t >= 0:
            if W[W_HELD, t] == HELD_IMMOBILIZED and ct[C_HOLD_ATTACK, c]:
                W[W_FORCED, c] = 1
                W[W_ACTION, c] = ATTACK
            else:
                W[W_ACTION, c] = HOLD


@rule
def _flee(W, rnd, tracing, ev, cnt):
    for c in range(W.shape[1]):
        if W[W_STATUS, c] == STANDING and W[W_ACTION, c] == FLEE:
            W[W_STATUS, c] = FLED
            W[W_DOWN, c] = rnd
            if tracing:
                events.emit(ev, cnt, EV_FLEE, rnd, c, W[W_WHY, c], 0, 0, 0, 0)


@rule
def _update_focus(seed, g, rnd, W, ct, n_sides, focus):
    # A side keeps one focus target until it falls; then a new one at random.
    C = W.shape[1]
    for s in range(n_sides):
        f = focus[s]
        if f >= 0 and W[W_STATUS, f] == STANDING and ct[C_SIDE, f] != s:
            continue
        m = 0
        for j in range(C):
            if W[W_STATUS, j] == STANDING and ct[C_SIDE, j] != s:
                m += 1
        focus[s] = -1
        if m:
            nth = keyed.pick(m, seed, g, rnd, FOCUS_SITE, s, 0)
            for j in range(C):
                if W[W_STATUS, j] == STANDING and ct[C_SIDE, j] != s:
                    if nth == 0:
                        focus[s] = j
                        break
                    nth -= 1


@rule
def _modifiers(seed, g, rnd, W, ct, flags, tracing, ev, cnt):
    """Attack penalty, defense, drawing weapons, and who can act this round."""
    C = W.shape[1]
    for c in range(C):
        s = W[W_SURPRISED, c]
        inj = W[W_INJ, c] if flags[G_INJ_ALL] else 0
        W[W_LOST, c] = rnd == 1 and s and flags[G_LOSE_ROUND]
        W[W_ATT_PEN, c] = s * (flags[G_FIRST_PEN] if rnd == 1 else SURPRISED_ROLL_PENALTY) + inj
        W[W_DEF, c] = ct[C_DEFENSE, c] - (SURPRISED_DEFENSE_PENALTY * s if rnd > 1 else 0)
        standing = W[W_STATUS, c] == STANDING
        if tracing and standing and W[W_LOST, c]:
            events.emit(ev, cnt, EV_LOST_ROUND, rnd, c, 0, 0, 0, 0, 0)
        if standing and not W[W_DRAWN, c] and ATTACKING[W[W_ACTION, c]] and not W[W_LOST, c]:
            # "A character can attempt to draw and use an available weapon in the same round. An
            # Evasion roll is required ... On an unsuccessful roll, the character acts as if surprised."
            quick = ct[C_QUICK_DRAW, c]
            r = keyed.die(20, seed, g, rnd, DRAW_ROLL, c, 0)
            score = ct[C_EVASION, c] - W[W_ROLL_PEN, c]
            failed = not (quick and r <= score)
            if failed and quick:
                W[W_SURPRISED, c] = 1
            if failed:
                W[W_LOST, c] = 1
            W[W_DRAWN, c] = 1
            if tracing:
                events.emit(ev, cnt, EV_DRAW, rnd, c, quick, r, score, int(failed), 0)
        W[W_CAN_ACT, c] = (standing and not W[W_LOST, c] and not W[W_ASLEEP, c] and not W[W_BOUND, c]
                           and W[W_HELD, c] == HELD_NONE)


@once
def _tying_and_leading(seed, g, rnd, W, ct, adj, tracing, ev, cnt):
    C = W.shape[1]
    for c in range(C):
        W[W_TYING, c], W[W_LED, c] = 0, 0
    for c in range(C):
        # Tying up an enemy an ally holds immobilized, when next to it.
        a = W[W_ACTION, c]
        if not W[W_CAN_ACT, c] or W[W_HOLDING, c] >= 0 or W[W_SURPRISED, c]:
            continue
        if not (a == TIE_UP or (ct[C_TIE_UP, c] and ATTACKING[a])):
            continue
        for j in range(C):
            if adj[c, j] and W[W_HELD, j] == HELD_IMMOBILIZED and W[W_STATUS, j] == STANDING:
                W[W_TYING, c] = 1
                W[W_ACTION, c] = TIE_UP
                break
    for c in range(C):
        # Leading: "grant the warrior cover bonus to up to level companions" on a Perception roll.
        if not (W[W_CAN_ACT, c] and W[W_ACTION, c] == LEAD and ct[C_WARRIOR, c]):
            continue
        r = keyed.die(20, seed, g, rnd, LEAD_ROLL, c, 0)
        score = ct[C_PERCEPTION, c] - W[W_ROLL_PEN, c]
        if tracing:
            events.emit(ev, cnt, EV_LEAD, rnd, c, r, score, int(r <= score), 0, 0)
        if r > score:
            continue
        k = 0
        for j in range(C):
            if k >= ct[C_LEVEL, c]:
                break
            if (j != c and W[W_STATUS, j] == STANDING and ct[C_SIDE, j] == ct[C_SIDE, c] and not W[W_LED, j]
                    and not ct[C_WARRIOR, j]):
                W[W_LED, j] = 1
                k += 1


@once
def _melees(W, adj):
    """Everyone joined by close combat, directly or through others, is one melee."""
    C = W.shape[1]
    for c in range(C):
        W[W_MELEE, c] = c if W[W_STATUS, c] == STANDING else -1
    changed = True
    while changed:
        changed = False
        for c in range(C):
            for j in range(C):
                if adj[c, j] and W[W_MELEE, c] >= 0 and 0 <= W[W_MELEE, j] < W[W_MELEE, c]:
                    W[W_MELEE, c] = W[W_MELEE, j]
                    changed = True
    for c in range(C):
        n = 0
        for j in range(C):
            n += W[W_MELEE, c] >= 0 and W[W_MELEE, j] == W[W_MELEE, c]
        W[W_MELEE_N, c] = n


@once
def _candidates(W, ct, st, dist, a, cand):
    o = st[S_OWNER, a]
    found = 0
    for j in range(W.shape[1]):
        cand[j] = (W[W_STATUS, j] == STANDING and ct[C_SIDE, j] != ct[C_SIDE, o]
                   and dist[o, j] <= st[S_REACH, a])
        found |= cand[j]
    return found


@once
def _reaches(W, ct, st, dist, a):
    """Whether slot a has a candidate (_candidates without filling them: stops at the first)."""
    o = st[S_OWNER, a]
    for j in range(W.shape[1]):
        if W[W_STATUS, j] == STANDING and ct[C_SIDE, j] != ct[C_SIDE, o] and dist[o, j] <= st[S_REACH, a]:
            return True
    return False


@rule
def _target(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf, use_nearest, a):
    if not _candidates(W, ct, st, dist, a, cand):
        return -1
    return _choose_target(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf, use_nearest, a)


@rule
def _choose_target(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf, use_nearest, a):
    """Slot a's target among its candidates `cand` (at least one)."""
    o = st[S_OWNER, a]
    # One evaluation: the target's uniform now, the attack roll and first damage die kept
    # for attacks.resolve (every slot with a target has them this round).
    w0, w1, w2, w3 = keyed.block(seed, g, rnd, SLOT_ROLLS, a, 0)
    SL[L_WORD_ATTACK, a], SL[L_WORD_DAMAGE, a] = w2, w3
    h = W[W_HOLDING, o]
    if W[W_FORCED, o] and h >= 0 and cand[h]:
        return h  # a holder strikes the target it holds immobilized
    cov = W[W_COVERING, o]
    if cov >= 0 and a == ct[C_FIRST_SLOT, o] and cand[cov]:
        return cov  # the weapon that took aim strikes the covered target
    mode = W[W_TMODE, o]
    if mode == WEAKEST or mode == STRONGEST or (mode == NEAREST and use_nearest):
        for j in range(W.shape[1]):
            hbuf[j] = W[W_VERVE, j] + W[W_SURV, j]
            dbuf[j] = dist[o, j] if use_nearest else 0.0
    elif mode == NEAREST:
        for j in range(W.shape[1]):
            dbuf[j] = 0.0
    return targeting.choose(mode, cand, hbuf, dbuf, focus[ct[C_SIDE, o]], keyed.uniform_words(w0, w1))


@once
def _slots(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf, flags):
    """Which attack slots act this round, reloading multi-action weapons, and their targets."""
    A, C = SL.shape[1], W.shape[1]
    use_nearest = flags[G_USE_NEAREST]
    for a in range(A):
        SL[L_REACHES, a] = _reaches(W, ct, st, dist, a)
    for a in range(A):
        o = st[S_OWNER, a]
        k = st[S_ACTIONS, a] if flags[G_MULTI] else 1
        SL[L_RELOAD, a], SL[L_FREE_NOW, a] = 0, 0
        if k > 1:
            # "Attacks which require more than one action ... gain one free action per use when
            # outside of close combat."
            free_now = not W[W_IN_CLOSE, o] and not SL[L_FREE_USED, a]
            fire_ok = SL[L_LOADED, a] + 1 + free_now >= k
            other = False  # out_of_close_combat reloads in close combat too when no other weapon reaches
            for b in range(ct[C_FIRST_SLOT, o], ct[C_FIRST_SLOT, o] + ct[C_NSLOT, o]):
                other |= SL[L_REACHES, b] and st[S_ACTIONS, b] == 1
            quiet = not W[W_IN_CLOSE, o] or not other
            policy = ct[C_RELOAD, o]
            may_reload = policy == 1 or (policy == 0 and quiet) or W[W_ACTION, o] == RELOAD
            SL[L_FREE_NOW, a] = free_now
            SL[L_RELOAD, a] = not fire_ok and may_reload
            SL[L_USABLE, a] = (SL[L_REACHES, a] and fire_ok) or SL[L_RELOAD, a]
        else:
            SL[L_USABLE, a] = SL[L_REACHES, a]
    for a in range(A):
        o = st[S_OWNER, a]
        act = W[W_CAN_ATTACK, o] and SL[L_USABLE, a]
        if act and st[S_ALT, a]:
            # Of several weapons only the first one usable this round is used.
            for b in range(ct[C_FIRST_SLOT, o], a):
                if SL[L_USABLE, b]:
                    act = False
        SL[L_ACTING, a] = act
        SL[L_TARGET, a] = -1
        if SL[L_REACHES, a] and (act or a == ct[C_FIRST_SLOT, o]):
            _candidates(W, ct, st, dist, a, cand)
            SL[L_TARGET, a] = _choose_target(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf,
                                             use_nearest, a)
    for c in range(C):
        W[W_AIM_T, c] = SL[L_TARGET, ct[C_FIRST_SLOT, c]]
        W[W_FIRING, c], W[W_BUSY, c] = 0, W[W_CASTING, c]
    for a in range(A):
        o = st[S_OWNER, a]
        reloading = SL[L_ACTING, a] and SL[L_RELOAD, a]
        SL[L_ATTACKING, a] = SL[L_ACTING, a] and SL[L_TARGET, a] >= 0 and not reloading
        if SL[L_ATTACKING, a] and st[S_RANGED, a]:
            W[W_FIRING, o] = 1
        if reloading:
            W[W_BUSY, o] = 1  # complex actions


@once
def _grabbing(W, SL, ct, st):
    # A grabber makes no other attack; "the combatant trying to immobilize their opponent
    # has a penalty of two to their defense".
    C, A = W.shape[1], SL.shape[1]
    for c in range(C):
        W[W_GRABBING, c] = 0
    for a in range(A):
        if SL[L_ATTACKING, a] and SL[L_KIND, a] == K_GRAB:
            W[W_GRABBING, st[S_OWNER, a]] = 1
    for a in range(A):
        if W[W_GRABBING, st[S_OWNER, a]] and SL[L_KIND, a] != K_GRAB:
            SL[L_ATTACKING, a] = 0
    for c in range(C):
        if W[W_HOLDING, c] >= 0 or W[W_GRABBING, c]:
            W[W_DEF, c] -= IMMOBILIZER_DEFENSE_PENALTY


@once
def _phases(seed, g, rnd, W, SL, tab, dist, uses, focus, cand, hbuf, dbuf, adj, tracing, ev, cnt):
    flags, ct, cf, st, sp, pair_mod, close_reach, cell_size = tab
    C, A = W.shape[1], SL.shape[1]
    phases = flags[G_PHASES]
    for c in range(C):
        W[W_ACTIVE, c] = W[W_CAN_ATTACK, c]
    for p in range(phases):
        if phases > 1:
            for c in range(C):
                # Later phases see who fell before them, and the injuries they took.
                if flags[G_INJ_ALL]:
                    W[W_ATT_PEN, c] += W[W_INJ, c] - W[W_ROLL_PEN, c] + (
                        SURPRISED_ROLL_PENALTY * W[W_SURPRISED, c] if rnd > 1 else 0)
                    W[W_ROLL_PEN, c] = W[W_INJ, c] + (SURPRISED_ROLL_PENALTY * W[W_SURPRISED, c] if rnd > 1 else 0)
        for a in range(A):
            o = st[S_OWNER, a]
            now = (SL[L_ATTACKING, a] and SL[L_KIND, a] == NORMAL and W[W_ACTIVE, o]
                   and (phases == 1 or ct[C_SIDE, o] == p))
            if now and phases > 1:
                SL[L_TARGET, a] = _target(seed, g, rnd, W, SL, ct, st, dist, focus, cand, hbuf, dbuf,
                                          flags[G_USE_NEAREST], a)
                now = SL[L_TARGET, a] >= 0
            SL[L_NOW, a] = now
        attacks.resolve(seed, g, rnd, SL[L_NOW], W, SL, ct, st, pair_mod, flags, adj, tracing, ev, cnt)
        for c in range(C):
            if W[W_CASTING, c] and (phases == 1 or ct[C_SIDE, c] == p):
                if W[W_UPSET, c]:
                    if tracing:
                        events.emit(ev, cnt, EV_SPELL_DISRUPTED, rnd, c, 0, 0, 0, 0, 0)
                else:
                    spells.cast(seed, g, rnd, W, ct, sp, uses, c, tracing, ev, cnt)
        for c in range(C):
            cand[c] = W[W_STATUS, c] == STANDING
        apply_and_check(seed, g, rnd, p, flags[G_CHECK_NOW], W, ct, flags, tracing, ev, cnt)
        for c in range(C):
            if cand[c] and W[W_STATUS, c] != STANDING:
                W[W_ACTIVE, c] = 0
    if not flags[G_CHECK_NOW]:
        settle_pending(seed, g, rnd, W, ct, flags, tracing, ev, cnt)


@rule
def emit_map(W, rnd, ev, cnt):
    for c in range(W.shape[1]):
        events.emit(ev, cnt, EV_POS, rnd, c, W[W_X, c], W[W_Y, c], int(W[W_STATUS, c] == STANDING), 0, 0)
    events.emit(ev, cnt, EV_MAP, rnd, 0, 0, 0, 0, 0, 0)


@once
def _after(seed, g, rnd, W, SL, ct, st, flags, adj, tracing, ev, cnt):
    """The end of the round: waking, loading, holds, tying up, taking aim, withdrawing."""
    C, A = W.shape[1], SL.shape[1]
    for c in range(C):
        if flags[G_SLEEP_WAKES] and W[W_ASLEEP, c] and W[W_RTAKEN, c] > 0:
            W[W_ASLEEP, c] = 0
            if tracing and W[W_STATUS, c] == STANDING:
                events.emit(ev, cnt, EV_WAKES_HIT, rnd, c, 0, 0, 0, 0, 0)
    for a in range(A if flags[G_MULTI] else 0):
        o = st[S_OWNER, a]
        if st[S_ACTIONS, a] <= 1:
            continue
        if SL[L_ACTING, a] and SL[L_RELOAD, a]:
            if not W[W_UPSET, o]:
                SL[L_LOADED, a] += 1 + SL[L_FREE_NOW, a]
                SL[L_FREE_USED, a] |= SL[L_FREE_NOW, a]
            if tracing:
                events.emit(ev, cnt, EV_LOAD, rnd, o, a, W[W_UPSET, o], SL[L_LOADED, a], st[S_ACTIONS, a] - 1, 0)
        if SL[L_ATTACKING, a]:
            SL[L_LOADED, a], SL[L_FREE_USED, a] = 0, 0
    if flags[G_HOLDS]:
        _hold_end(seed, g, rnd, W, SL, ct, st, flags, adj, tracing, ev, cnt)
    for c in range(C if flags[G_AIM] else 0):  # else W_COVERING stays -1 from the start
        aiming = W[W_CAN_ACT, c] and W[W_ACTION, c] == COVER and W[W_STATUS, c] == STANDING
        t = W[W_AIM_T, c]
        valid = False
        if aiming and t >= 0 and not W[W_MOVED, c]:
            valid = not W[W_MOVED, t] or W[W_SURPRISED, t] or W[W_ASLEEP, t]
        W[W_COVERING, c] = t if valid else -1
        if tracing and aiming:
            events.emit(ev, cnt, EV_AIM, rnd, c, t, int(valid), 0, 0, 0)
    for c in range(C):
        if W[W_STATUS, c] == STANDING and W[W_ACTION, c] == WITHDRAW:
            W[W_STATUS, c] = FLED
            W[W_DOWN, c] = rnd
            if tracing:
                events.emit(ev, cnt, EV_WITHDRAW, rnd, c, W[W_WHY, c], 0, 0, 0, 0)
    if flags[G_HOLDS]:
        holds.release(W)


@once
def _hold_end(seed, g, rnd, W, SL, ct, st, flags, adj, tracing, ev, cnt):
    C, A = W.shape[1], SL.shape[1]
    for c in range(C):
        W[W_ON_HELD, c] = 0
    for a in range(A):
        o = st[S_OWNER, a]
        if SL[L_ATTACKING, a] and SL[L_TARGET, a] == W[W_HOLDING, o]:
            W[W_ON_HELD, o] = 1  # the holder attacked its target
    holds.hold_contests(seed, g, rnd, W, ct, st, tracing, ev, cnt)
    apply_and_check(seed, g, rnd, K_HOLD_BREAK, True, W, ct, flags, tracing, ev, cnt)
    holds.tie_up(W, adj, rnd, tracing, ev, cnt)
    holds.release(W)
