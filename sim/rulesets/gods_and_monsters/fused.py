"""A core scenario's chunk (flag G_CORE) in one fused pass per round.

It plays exactly what kernel.play_chunk with core.play_round_core plays, with the same
keyed numbers (tests/test_gm_speed_paths.py compares them skirmish by skirmish), for
chunks without a trace whose start, if any, carries no conditions. The saving is in the shape, not the rules: a
round is two passes over the combatants, one over the slots and one landing the blows
instead of a dozen calls each re-reading the state; a slot chooses its target and
resolves its attack in one step (nothing lands before the phase ends); the enemies in
reach of a slot are a bitmask fixed for the chunk (distances never change) and the
standing combatants a running bitmask; a skirmish's setup writes only the rows the
core round reads; damage is rolled only for blows that land (a miss's is never read).
"""
from __future__ import annotations

import numpy as np

from sim import keyed, targeting
from sim.rulesets.base import DEAD, DRAW, FLED, STANDING, UNCONSCIOUS, UNFINISHED
from sim.rulesets.gods_and_monsters.decide import family_action
from sim.rulesets.gods_and_monsters.moves import distances
from sim.rulesets.gods_and_monsters.schema import SURPRISED_DEFENSE_PENALTY, SURPRISED_ROLL_PENALTY
from sim.rulesets.gods_and_monsters.stall import STALL_EVERY, STALL_ROUNDS, fingerprint
from sim.rulesets.gods_and_monsters.tables import (
    ATTACK, ATTACKING, C_COVER, C_DEFENSE, C_DRAWN0, C_EVASION, C_FIRST_SLOT, C_FORT, C_QUICK_DRAW, C_SIDE,
    C_SLEEPER, C_SNAP_T, C_SURPRISE_T, C_SURV, C_TMODE, C_USES_VERVE, C_VERVE, C_WARRIOR, C_X0, C_Y0, COVER_TABLE,
    DEATH_GUIDE, DRAW_ROLL, FLEE, FOCUS_SITE, G_COVER_MELEE, G_FIRST_PEN, G_GUIDE, G_INJ_ALL,
    G_LOSE_ROUND, G_METRIC, G_SIDES, G_SLEEP_WAKES, G_SLEEPERS, G_UNAWARE, HEALTH, HOLD, IMMOBILE, K_SLOT_ATTACK,
    K_SLOT_DAMAGE, MANEUVER, ND_ATTACK, ND_DAMAGE, NEVER, S_ALT, S_BASE, S_DBONUS, S_DCOUNT,
    S_DSIDES, S_OWNER, S_RANGED, S_REACH, SLOT_ROLLS, SNAP, SURPRISE, UNAWARE, W_ACTION, W_ASLEEP, W_ATT_PEN,
    W_ATTACKS, W_CAN_ACT, W_COVERING, W_DEALT, W_DEF, W_DOWN, W_DRAWN, W_HELD_BY, W_HITS, W_HOLDING, W_INJ,
    W_LAST_DEALT, W_LAST_TAKEN, W_PTAKEN, W_RDEALT, W_ROLL_PEN, W_STATUS, W_SURPRISED, W_SURV, W_TAKEN, W_TMODE,
    W_VERVE, W_WAKE, W_WAS_SURPRISED, W_WHY, W_X, W_Y, WITHDRAW)
from sim.jit import once, rule

MAX_FUSED = 63  # combatants an int64 bitmask holds


@rule
def play_core_chunk(seed, first, n, max_rounds, tab, out, W, SL, scratch, masks, start):
    """kernel.play_chunk for a core scenario, no trace, and a start of no conditions (none,
    or status, verve, survival, injuries and surprise only); masks: (7, max(A, C)) work."""
    flags, ct, cf, st, sp, pair_mod, close_reach, cell_size = tab
    dist, adj, uses, focus, cand, hbuf, dbuf, obs, stack, seen = scratch
    winner, rounds, o_attacks, o_hits, o_dealt, o_taken, o_status, o_down, o_surprised, o_verve, o_surv, o_inj, \
        stalled, _ = out  # a core scenario has no spells: no uses left to write
    has_start, s_verve, s_surv, s_inj, s_status, s_surprised, _ = start
    C = W.shape[1]
    W[:, :] = 0  # once a chunk: rows the core round never writes stay 0, as a fresh skirmish has them
    for c in range(C):
        W[W_X, c], W[W_Y, c] = ct[C_X0, c], ct[C_Y0, c]
        W[W_HELD_BY, c], W[W_HOLDING, c], W[W_COVERING, c] = -1, -1, -1
    distances(W, dist, flags[G_METRIC])
    for a in range(st.shape[1]):
        o, m = st[S_OWNER, a], 0
        for j in range(C):
            if ct[C_SIDE, j] != ct[C_SIDE, o] and dist[o, j] <= st[S_REACH, a]:
                m |= 1 << j
        masks[0, a] = m
    n_sur = 0
    for c in range(C):
        if ct[C_SURPRISE_T, c] < NEVER:
            masks[6, n_sur] = c
            n_sur += 1
    # The side focus only steers `focus` targeting, and the stall check reads it.
    need_focus = max_rounds > STALL_ROUNDS
    for c in range(C):
        need_focus |= ct[C_TMODE, c] == targeting.FOCUS
    for i in range(n):
        g = first + i
        up = _fresh(seed, g, W, ct, flags, focus, masks, n_sur)
        if has_start:
            up = _carried(i, W, ct, flags, s_status, s_verve, s_surv, s_inj, s_surprised)
        w, played = _skirmish(seed, g, max_rounds, W, SL, ct, cf, st, flags, pair_mod, uses, focus, masks, up,
                              need_focus, stalled)
        winner[i], rounds[i] = w, played
        for c in range(C):
            o_attacks[i, c], o_hits[i, c] = W[W_ATTACKS, c], W[W_HITS, c]
            o_dealt[i, c], o_taken[i, c] = W[W_DEALT, c], W[W_TAKEN, c]
            o_status[i, c], o_down[i, c], o_surprised[i, c] = W[W_STATUS, c], W[W_DOWN, c], W[W_WAS_SURPRISED, c]
            o_verve[i, c], o_surv[i, c], o_inj[i, c] = W[W_VERVE, c], W[W_SURV, c], W[W_INJ, c]


@once
def _fresh(seed, g, W, ct, flags, focus, masks, n_sur):
    # The rows a skirmish's rounds change, as kernel.play_chunk sets them; the standing mask.
    up = 0
    for c in range(W.shape[1]):
        W[W_STATUS, c], W[W_INJ, c], W[W_DOWN, c] = STANDING, 0, 0
        W[W_VERVE, c], W[W_SURV, c] = ct[C_VERVE, c], ct[C_SURV, c]
        W[W_ATTACKS, c], W[W_HITS, c], W[W_DEALT, c], W[W_TAKEN, c] = 0, 0, 0, 0
        W[W_LAST_DEALT, c], W[W_LAST_TAKEN, c], W[W_PTAKEN, c] = 0, 0, 0
        W[W_SURPRISED, c], W[W_WAS_SURPRISED, c] = 0, 0
        W[W_DRAWN, c] = ct[C_DRAWN0, c]
        up |= 1 << c
    # The surprise rolls (masks[6, :n_sur]: who rolls), their evaluations in one loop.
    keyed.blocks_into(masks[1:5], masks[6], n_sur, seed, g, 0, SURPRISE, 0)
    for j in range(n_sur):
        c = masks[6, j]
        s = keyed.die_first_word(masks[1, j], 20, seed, g, 0, SURPRISE, c, 0) > ct[C_SURPRISE_T, c]
        W[W_SURPRISED, c], W[W_WAS_SURPRISED, c] = s, s
    for c in range(W.shape[1]):
        W[W_ASLEEP, c] = flags[G_SLEEPERS] and W[W_SURPRISED, c] and ct[C_SLEEPER, c]
        W[W_WAKE, c] = 2 if W[W_ASLEEP, c] else NEVER
    for s in range(focus.shape[0]):
        focus[s] = -1
    return up


@once
def _carried(i, W, ct, flags, s_status, s_verve, s_surv, s_inj, s_surprised):
    # A start carried in (a day's next fight), as kernel.play_chunk reads it: status and
    # wounds as given; surprise as given, or as _fresh rolled it where the start says -1.
    up = 0
    for c in range(W.shape[1]):
        W[W_STATUS, c], W[W_VERVE, c] = s_status[i, c], s_verve[i, c]
        W[W_SURV, c], W[W_INJ, c] = s_surv[i, c], s_inj[i, c]
        if s_surprised[i, c] >= 0:
            W[W_SURPRISED, c], W[W_WAS_SURPRISED, c] = s_surprised[i, c], s_surprised[i, c]
            W[W_ASLEEP, c] = flags[G_SLEEPERS] and W[W_SURPRISED, c] and ct[C_SLEEPER, c]
            W[W_WAKE, c] = 2 if W[W_ASLEEP, c] else NEVER
        if W[W_STATUS, c] == STANDING:
            up |= 1 << c
    return up


@once
def _skirmish(seed, g, max_rounds, W, SL, ct, cf, st, flags, pair_mod, uses, focus, masks, up, need_focus, stalled):
    """(winner, rounds played) of one skirmish from its fresh state."""
    C, n_sides = W.shape[1], flags[G_SIDES]
    watch = max_rounds > STALL_ROUNDS
    last, unchanged, played = 0, 0, 0
    for rnd in range(1, max_rounds + 1):
        if watch and rnd % STALL_EVERY == 1 and rnd > 1:
            now = fingerprint(W, SL, uses, focus)
            unchanged = unchanged + STALL_EVERY if now == last else 0
            last = now
            if unchanged >= STALL_ROUNDS:
                stalled[0] += 1
                return UNFINISHED, played
        up = _begin(seed, g, rnd, W, ct, cf, flags, uses, up)
        if need_focus:
            _focus(seed, g, rnd, W, ct, n_sides, focus, up)
        _strike(seed, g, rnd, W, ct, st, flags, pair_mod, focus, masks, up)
        up = _land(seed, g, rnd, W, ct, flags, up)
        played = rnd
        sides_left, side = 0, -1
        for s in range(n_sides):
            for c in range(C):
                if (up >> c) & 1 and ct[C_SIDE, c] == s:
                    sides_left += 1
                    side = s
                    break
        if sides_left <= 1:
            return (side if sides_left == 1 else DRAW), played
    return UNFINISHED, played


@once
def _begin(seed, g, rnd, W, ct, cf, flags, uses, up):
    """Snapping out of surprise, waking, deciding and constraining (reading the round's
    start), then fleeing and the modifiers (round._start .. round._modifiers)."""
    C = W.shape[1]
    inj_all = flags[G_INJ_ALL]
    zero = np.uint64(0)
    b, w = -1, (zero, zero, zero, zero)
    for c in range(C):
        pen = W[W_INJ, c] if inj_all else 0
        if rnd > 1 and W[W_SURPRISED, c]:
            if c // 4 != b:
                b = c // 4
                w = keyed.block(seed, g, rnd, SNAP, 0, b)
            if keyed.die_word(w[c % 4], 20, seed, g, rnd, SNAP, 0, c) <= ct[C_SNAP_T, c] - pen:
                W[W_SURPRISED, c] = 0
        W[W_ROLL_PEN, c] = pen + (SURPRISED_ROLL_PENALTY * W[W_SURPRISED, c] if rnd > 1 else 0)
        if W[W_ASLEEP, c] and W[W_WAKE, c] <= rnd:
            W[W_ASLEEP, c] = 0
        W[W_TMODE, c], W[W_ACTION, c], W[W_WHY, c] = ct[C_TMODE, c], ATTACK, -1
        if (up >> c) & 1:
            act = family_action(W, ct, cf, flags[G_SIDES], rnd, uses, c)
            if W[W_ASLEEP, c]:
                act = HOLD
            if W[W_SURPRISED, c] and MANEUVER[act]:
                act = ATTACK
            W[W_ACTION, c] = act
    for c in range(C):
        if (up >> c) & 1 and W[W_ACTION, c] == FLEE:
            W[W_STATUS, c], W[W_DOWN, c] = FLED, rnd
            up &= ~(1 << c)
        _modifiers(seed, g, rnd, W, ct, flags, c, (up >> c) & 1)
    return up


@once
def _modifiers(seed, g, rnd, W, ct, flags, c, standing):
    s = W[W_SURPRISED, c]
    inj = W[W_INJ, c] if flags[G_INJ_ALL] else 0
    lost = rnd == 1 and s and flags[G_LOSE_ROUND]
    W[W_ATT_PEN, c] = s * (flags[G_FIRST_PEN] if rnd == 1 else SURPRISED_ROLL_PENALTY) + inj
    W[W_DEF, c] = ct[C_DEFENSE, c] - (SURPRISED_DEFENSE_PENALTY * s if rnd > 1 else 0)
    attacking = ATTACKING[W[W_ACTION, c]]
    if standing and not W[W_DRAWN, c] and attacking and not lost:
        quick = ct[C_QUICK_DRAW, c]
        r = keyed.die(20, seed, g, rnd, DRAW_ROLL, c, 0)
        failed = not (quick and r <= ct[C_EVASION, c] - W[W_ROLL_PEN, c])
        if failed and quick:
            W[W_SURPRISED, c] = 1
        lost |= failed
        W[W_DRAWN, c] = 1
    W[W_CAN_ACT, c] = standing and not lost and not W[W_ASLEEP, c] and attacking


@once
def _focus(seed, g, rnd, W, ct, n_sides, focus, up):
    # round._update_focus on the standing mask.
    C = W.shape[1]
    for s in range(n_sides):
        f = focus[s]
        if f >= 0 and (up >> f) & 1 and ct[C_SIDE, f] != s:
            continue
        m = 0
        for j in range(C):
            if (up >> j) & 1 and ct[C_SIDE, j] != s:
                m += 1
        focus[s] = -1
        if m:
            nth = keyed.pick(m, seed, g, rnd, FOCUS_SITE, s, 0)
            for j in range(C):
                if (up >> j) & 1 and ct[C_SIDE, j] != s:
                    if nth == 0:
                        focus[s] = j
                        break
                    nth -= 1


@once
def _strike(seed, g, rnd, W, ct, st, flags, pair_mod, focus, masks, up):
    """Every slot of a combatant who attacks picks a target in reach (of alternative
    weapons only the first that reaches one) and rolls its attack against the round's
    start: W_PTAKEN of the targets and the tallies (core._attack_slots, attacks.resolve)."""
    C = W.shape[1]
    used = False
    for c in range(C):
        W[W_RDEALT, c] = 0
    # First which slots roll (nothing the rolls decide changes it), then their blocks two
    # evaluations in one loop (masks[5]: the slots, masks[1..4]: their words), then each slot's
    # attack in slot order.
    nr = 0
    for a in range(st.shape[1]):
        o = st[S_OWNER, a]
        if a == ct[C_FIRST_SLOT, o]:
            used = False
        if not W[W_CAN_ACT, o] or (st[S_ALT, a] and used):
            continue
        if masks[0, a] & up == 0:
            continue
        used = True
        masks[5, nr] = a
        nr += 1
    keyed.blocks_into(masks[1:5], masks[5], nr, seed, g, rnd, SLOT_ROLLS, 0)
    for j in range(nr):
        a = masks[5, j]
        o = st[S_OWNER, a]
        cand = masks[0, a] & up
        w0, w1 = np.uint64(masks[1, j]), np.uint64(masks[2, j])
        w2, w3 = np.uint64(masks[3, j]), np.uint64(masks[4, j])
        t = _choose(W[W_TMODE, o], cand, W, focus[ct[C_SIDE, o]], keyed.uniform_words(w0, w1))
        level = 0
        if flags[G_UNAWARE] and rnd == 1 and W[W_SURPRISED, t]:
            level = UNAWARE
        if W[W_ASLEEP, t]:
            level = max(level, IMMOBILE)
        cover = ct[C_COVER, t] if (st[S_RANGED, a] or flags[G_COVER_MELEE]) else 0
        need = (st[S_BASE, a] - W[W_DEF, t] - W[W_ATT_PEN, o] - COVER_TABLE[cover, 0 if ct[C_WARRIOR, t] else 1]
                + ND_ATTACK[level] + pair_mod[a, t])
        hit = keyed.die_word(w2, 20, seed, g, rnd, SLOT_ROLLS, a, K_SLOT_ATTACK) <= need
        dealt = 0
        if hit:
            dealt = _damage(seed, g, rnd, st, a, w3) + ND_DAMAGE[level]
        W[W_PTAKEN, t] += dealt
        W[W_TAKEN, t] += dealt
        W[W_ATTACKS, o] += 1
        W[W_HITS, o] += hit
        W[W_DEALT, o] += dealt
        W[W_RDEALT, o] += dealt


@once
def _damage(seed, g, rnd, st, a, word):
    # attacks._slot_roll_damage: the first die from the slot's block, the rest after it.
    count, sides = st[S_DCOUNT, a], st[S_DSIDES, a]
    total = st[S_DBONUS, a]
    if count > 0:
        total += keyed.die_word(word, sides, seed, g, rnd, SLOT_ROLLS, a, K_SLOT_DAMAGE)
        total += keyed.dice4(count - 1, sides, 0, seed, g, rnd, SLOT_ROLLS, a, K_SLOT_DAMAGE + 1)
    return max(total, 0)


@once
def _choose(mode, cand, W, focus, u):
    # targeting.choose on a bitmask; `nearest` under fixed distances ties all: random.
    if mode == targeting.FOCUS and focus >= 0 and (cand >> focus) & 1:
        return focus
    if mode == targeting.WEAKEST or mode == targeting.STRONGEST:
        best, found = 0, False
        for j in range(W.shape[1]):
            h = W[W_VERVE, j] + W[W_SURV, j]
            if (cand >> j) & 1 and (not found or (h < best if mode == targeting.WEAKEST else h > best)):
                best, found = h, True
        for j in range(W.shape[1]):
            if (cand >> j) & 1 and W[W_VERVE, j] + W[W_SURV, j] != best:
                cand &= ~(1 << j)
    m = 0
    for j in range(W.shape[1]):
        m += (cand >> j) & 1
    nth = min(int(u * m), m - 1)
    for j in range(W.shape[1]):
        if (cand >> j) & 1:
            if nth == 0:
                return j
            nth -= 1
    return -1


@once
def _land(seed, g, rnd, W, ct, flags, up):
    """The blows land, the rolls to stay conscious (damage.apply_and_check, checks now),
    waking on damage, withdrawing, and the round's totals for the next decision."""
    for c in range(W.shape[1]):
        taken = W[W_PTAKEN, c]
        W[W_PTAKEN, c] = 0
        if taken != 0:
            left = taken
            if ct[C_USES_VERVE, c]:
                off = min(W[W_VERVE, c], left)
                W[W_VERVE, c] -= off
                left -= off
            had_survival = W[W_SURV, c] > 0
            off = min(W[W_SURV, c], left)
            W[W_SURV, c] -= off
            left -= off
            W[W_INJ, c] += left
            if (up >> c) & 1 and ((had_survival and W[W_SURV, c] == 0 and taken > 0) or left > 0):
                _health_check(seed, g, rnd, c, W, ct, flags)
            if flags[G_SLEEP_WAKES]:
                W[W_ASLEEP, c] = 0
        if (up >> c) & 1 and (W[W_STATUS, c] != STANDING or W[W_ACTION, c] == WITHDRAW):
            if W[W_STATUS, c] == STANDING:
                W[W_STATUS, c], W[W_DOWN, c] = FLED, rnd
            up &= ~(1 << c)
        W[W_LAST_DEALT, c], W[W_LAST_TAKEN, c] = W[W_RDEALT, c], taken
    return up


@once
def _health_check(seed, g, rnd, c, W, ct, flags):
    # damage.health_check with k = 0 (the one phase of simultaneous resolution).
    inj, fort = W[W_INJ, c], ct[C_FORT, c]
    if flags[G_GUIDE]:
        dies = (inj > 0 and keyed.die(20, seed, g, rnd, DEATH_GUIDE, c, 0) <= inj
                and keyed.die(20, seed, g, rnd, DEATH_GUIDE, c, 1) > fort)
    else:
        dies = inj > fort
    if dies:
        W[W_STATUS, c], W[W_DOWN, c] = DEAD, rnd
        return
    pen = SURPRISED_ROLL_PENALTY * W[W_SURPRISED, c] if rnd > 1 else 0
    if keyed.die(20, seed, g, rnd, HEALTH, c, 0) > fort - inj - pen:
        W[W_STATUS, c], W[W_DOWN, c] = UNCONSCIOUS, rnd
