"""The Lens skirmish as one compiled kernel: each round as the rule text reads it.

A round: Momentum is dealt (3 + bonus, bracket and condition effects); characters who
act before the opponents spend it in beats; the monsters attack (the characters defend,
player-facing); characters who act after spend what is left; unspent Momentum becomes
Recovery. The kernel plays skirmish after skirmish of a chunk, each to its end.
"""
from __future__ import annotations

import numpy as np

from sim import keyed, policy_vm
from sim.rulesets.lens.kactions import FLED, beat
from sim.rulesets.lens.kbeat import FLEE, HOLD_A, choose_counted, observe, reads_scores
from sim.rulesets.lens.kblows import DEFENCE_ROOM, strike
from sim.rulesets.lens.kcore import (
    cand_of,
    dist_of,
    focus_of,
    health_of,
    obs_of,
    order_of,
    policy_views,
    stack_of,
    work_of,
    slot_mean,
    slot_table,
    ATTACKS,
    BEAT,
    BODYV,
    BRACKET,
    COND,
    DEALT,
    DEFENCES,
    DEFENDED,
    DOWN_ROUND,
    E_END,
    E_FOCUS,
    E_INIT,
    E_MOMENTUM,
    E_MON_ATTACK,
    E_PHASE,
    E_ROUND,
    E_STALL,
    E_START,
    E_SURPRISE,
    EARLY,
    FORMED,
    FRESH,
    HITS,
    ITEMS,
    LOCKED,
    LOST,
    MOM,
    OWED,
    PROGRESS,
    PX,
    PY,
    RECOVERED,
    RND,
    SITE_FOCUS,
    SITE_INIT,
    SITE_MON_DAMAGE,
    SITE_MON_TARGET,
    SITE_DEFEND,
    SITE_PLACE,
    SK,
    SPENT,
    STANDING,
    START_MOM,
    STATUS,
    TAGS_APPLIED,
    TAKEN,
    TRACING,
    TURN_OVER,
    VOID,
    challenge,
    cond_losses,
    distance,
    emit,
    draw_ahead,
    drawn,
    drawn_of,
    roll_drawn,
    walk,
)
from sim.rulesets.lens.ktables import (
    R_OFF_ZLEN,
    R_OFF_ZONES,
    R_ZMAX,
    AUTO_CAST,
    BODY,
    BONUS,
    EV,
    FIX_OFF_BALANCE,
    FIX_SURPRISE,
    INIT_AB,
    INIT_TN,
    IS_CHAR,
    ITEM_USES,
    PER_ROUND,
    R_BEATS,
    R_FIXES,
    R_FORMED_ROUND,
    R_LASTING,
    R_MPR,
    R_RECOVERY,
    R_SIDES,
    R_SLOTS,
    R_SPATIAL,
    R_SURPRISE,
    R_USES_FOCUS,
    REACH_ANY,
    S_BONUS,
    S_COUNT,
    S_MAGICAL,
    S_MASK,
    S_MISSILE,
    S_OWNER,
    S_RANK,
    S_REACH,
    S_SIDES,
    SCATTER,
    SCRIPTED,
    SIDE,
    SPEED,
    START_X,
    START_Y,
    TARGET,
    TIMING,
    TIMING_SET,
)
from sim.jit import kernel, once, rule


BEFORE, AFTER, AUTO = range(3)
DRAW, UNFINISHED = -1, -2
STALL_ROUNDS = 500
# Outcome columns, in this order (out[k]).
OUT_COLUMNS = ("attacks", "hits", "damage_dealt", "damage_taken", "final_state", "down_round", "momentum_spent",
               "defences_used", "recovered", "void", "body_left", "bracket", "defended_abjure", "defended_mitigate",
               "defended_block", "defended_dodge", "defended_parry", "tags_applied", "items_left")
_SOURCES = (ATTACKS, HITS, DEALT, TAKEN, STATUS, DOWN_ROUND, SPENT, DEFENCES, RECOVERED, VOID, BODYV, BRACKET,
            DEFENDED, DEFENDED + 1, DEFENDED + 2, DEFENDED + 3, DEFENDED + 4, TAGS_APPLIED, ITEMS)
OUT_ROWS = np.array(_SOURCES, dtype=np.int64)
# What a skirmish may start from (start[k]): Body left, Void, conditions, item uses left (-1: as built).
START_KEYS = ("body_left", "void", "conditions", "items_left")
SNAP_ROWS = np.array((STATUS, BODYV, VOID, COND, PX, PY, ITEMS, PROGRESS, FORMED, OWED), dtype=np.int64)


@once
def _surprised(K, i, rnd, fixed):
    """Whether combatant i loses this round to surprise: the first side (party_surprised) or
    the others (monsters_surprised); before the fix, every character or every monster."""
    ci, R = K[0], K[2]
    if rnd != 1 or R[R_SURPRISE] == 0:
        return False
    if fixed:
        return (ci[i, SIDE] == 0) == (R[R_SURPRISE] == 1)
    return (ci[i, IS_CHAR] == 1) == (R[R_SURPRISE] == 1)


@once
def _start_round(K, st, rnd, ctx, ev, cnt):
    ci, R = K[0], K[2]
    fixed = (R[R_FIXES] & FIX_SURPRISE) != 0
    off_balance_fixed = (R[R_FIXES] & FIX_OFF_BALANCE) != 0
    lasting = R[R_LASTING]
    for i in range(st.shape[1]):
        loss, st[LOST, i] = cond_losses(K, st[FRESH, i])
        st[FRESH, i] = 0
        st[COND, i] &= lasting
        standing = st[STATUS, i] == STANDING
        early, pay = 0, 0
        if ci[i, IS_CHAR] == 1:
            b = st[BRACKET, i]
            pref = AFTER if (ci[i, EV] == 1 and ci[i, TIMING_SET] == 0) else ci[i, TIMING]
            wants = pref == BEFORE or (pref == AUTO and st[BODYV, i] / ci[i, BODY] >= 0.5)
            if off_balance_fixed and b == 1 and not (pref == BEFORE and ci[i, TIMING_SET] == 1):
                wants = False  # paying a Momentum to go first is an explicit choice (timing: before)
            early = 1 if (b == 2 or ((b == 1 or b == 3) and wants)) else 0
            pay = 1 if (early == 1 and b == 1) else 0
        st[EARLY, i] = early
        mom = 0
        if ci[i, IS_CHAR] == 1 and standing:
            b = st[BRACKET, i]
            mom = max(R[R_MPR] + ci[i, BONUS] + int(b == 3) - int(b == 0) - pay - loss - st[OWED, i], 0)
        st[MOM, i] = mom
        st[START_MOM, i] = mom
        st[OWED, i] = 0
        st[LOCKED, i] = 0
        st[TURN_OVER, i] = 1 if (not standing or ci[i, IS_CHAR] == 0 or _surprised(K, i, rnd, fixed)) else 0
        if R[R_FORMED_ROUND] == 1:
            st[FORMED, i] = ci[i, AUTO_CAST]
        if ci[i, IS_CHAR] == 1 and standing:
            emit(ev, cnt, ctx, E_MOMENTUM, i, mom, st[BRACKET, i], early, pay, loss)


@once
def _update_focus(K, st, seed, ctx, ev, cnt):
    """A side keeps its focus until it falls; a new one is drawn among the enemies standing."""
    fo = focus_of(K, ctx)
    ci, R = K[0], K[2]
    for s in range(R[R_SIDES]):
        cur = fo[s]
        if cur >= 0 and st[STATUS, cur] == STANDING and ci[cur, SIDE] != s:
            continue
        m = 0
        for j in range(st.shape[1]):
            if ci[j, SIDE] != s and st[STATUS, j] == STANDING:
                m += 1
        fo[s] = -1
        if m:
            nth = min(int(keyed.uniform(seed, ctx[SK], ctx[RND], SITE_FOCUS, s, 0) * m), m - 1) if m > 1 else 0
            for j in range(st.shape[1]):
                if ci[j, SIDE] != s and st[STATUS, j] == STANDING:
                    if nth == 0:
                        fo[s] = j
                        break
                    nth -= 1
            emit(ev, cnt, ctx, E_FOCUS, s, fo[s], 0, 0, 0, 0)


@once
def _phase(K, P, st, early, F, seed, ctx, ev, cnt):
    ci, R = K[0], K[2]
    # Who may still act in this phase, in scenario order: a character whose turn is over
    # or who is down stays so until the next round, so it leaves the list for good.
    order = order_of(K, st, ctx)
    n = 0
    for c in range(st.shape[1]):
        if ci[c, IS_CHAR] == 1 and st[EARLY, c] == early and st[STATUS, c] == STANDING and st[TURN_OVER, c] == 0:
            order[n] = c
            n += 1
    for b in range(R[R_BEATS]):
        if n == 0:
            break
        ctx[BEAT] = b
        kept = 0
        for q in range(n):
            c = order[q]
            if st[STATUS, c] == STANDING and st[TURN_OVER, c] == 0:
                beat(K, P, st, c, F, seed, ctx, ev, cnt)
            if st[STATUS, c] == STANDING and st[TURN_OVER, c] == 0:
                order[kept] = c
                kept += 1
        n = kept


@once
def _close_in(K, st, ctx, ev, cnt):
    """Monsters with nobody in reach walk their speed toward the nearest enemy; who walks,
    and toward whom, is decided before anybody moves (wk[1 + m]: m's goal)."""
    ci = K[0]
    C = st.shape[1]
    wk = work_of(K, st, ctx)
    for m in range(C):
        wk[1 + m] = -1
        if ci[m, IS_CHAR] == 1 or ci[m, REACH_ANY] < 0 or st[STATUS, m] != STANDING or wk[1 + C + m] == HOLD_A:
            continue
        near, best = -1, 0
        for j in range(C):
            if ci[j, SIDE] != ci[m, SIDE] and st[STATUS, j] == STANDING:
                d = distance(K, st, m, j)
                if near < 0 or d < best:
                    near, best = j, d
        if near >= 0 and best > ci[m, REACH_ANY]:
            wk[1 + m] = near
    for m in range(C):
        if wk[1 + m] >= 0:
            walk(K, st, m, wk[1 + m], ci[m, SPEED], max(ci[m, REACH_ANY], 1), ctx, ev, cnt)


@once
def _monster_orders(K, P, st, F, ctx):
    """A monster's scripted rules, read once at the start of the monsters' phase:
    wk[1 + C + m] its action (-1: attack as usual, HOLD_A: no attack and no move this
    round; `flee` leaves the fight at once), wk[1 + 2C + m] the mode of its attacks."""
    ci = K[0]
    C = st.shape[1]
    wk, obs, stack = work_of(K, st, ctx), obs_of(st, F), stack_of(st, F)
    op, arg, const, rule_code, action, mode, rule_first, _ = policy_views(P)
    for m in range(C):
        wk[1 + C + m] = -1
        wk[1 + 2 * C + m] = ci[m, TARGET]
        if ci[m, IS_CHAR] == 1 or ci[m, SCRIPTED] == 0 or st[STATUS, m] != STANDING:
            continue
        in_reach = False
        for j in range(C):
            if ci[j, SIDE] != ci[m, SIDE] and st[STATUS, j] == STANDING:
                in_reach = in_reach or distance(K, st, m, j) <= ci[m, REACH_ANY]
        observe(K, P, st, m, obs, st[BODYV, m] / ci[m, BODY], in_reach, ctx)
        r = policy_vm.first_rule(op, arg, const, rule_code, rule_first, m, obs, stack)
        if r < 0:
            continue
        if mode[r] >= 0:
            wk[1 + 2 * C + m] = mode[r]
        if action[r] == FLEE:
            st[STATUS, m] = FLED
            st[DOWN_ROUND, m] = ctx[RND]
        elif action[r] == HOLD_A:
            wk[1 + C + m] = HOLD_A


@once
def _monsters(K, P, st, F, seed, ctx, ev, cnt):
    ci, si, R = K[0], slot_table(K), K[2]
    fixed = (R[R_FIXES] & FIX_SURPRISE) != 0
    rnd = ctx[RND]
    if R[R_SLOTS] == 0 or (not fixed and rnd == 1 and R[R_SURPRISE] == 2):
        return
    _monster_orders(K, P, st, F, ctx)
    if R[R_SPATIAL] == 1:
        _close_in(K, st, ctx, ev, cnt)
    C = st.shape[1]
    wk, cand, fo = work_of(K, st, ctx), cand_of(K, st, ctx), focus_of(K, ctx)
    health, dist = health_of(st, F), dist_of(st, F)
    for s in range(R[R_SLOTS]):
        m = si[s, S_OWNER]
        if st[STATUS, m] != STANDING or si[s, S_RANK] >= ci[m, PER_ROUND] - st[LOST, m] or wk[1 + C + m] == HOLD_A:
            continue
        if fixed and _surprised(K, m, rnd, True):
            continue
        # The slot's three numbers (target, damage, the defence roll), drawn side by side
        # ahead of use (kcore.draw_ahead says why); a character is the usual target.
        dr = drawn_of(K, st, ctx)
        draw_ahead(dr, 0, seed, ctx, SITE_MON_TARGET, s, 0)
        draw_ahead(dr, 1, seed, ctx, SITE_MON_DAMAGE, s, 0)
        draw_ahead(dr, DEFENCE_ROOM, seed, ctx, SITE_DEFEND, s, 0)
        scores = reads_scores(wk[1 + 2 * C + m])
        n_cand = 0
        for j in range(C):
            dd = distance(K, st, m, j)
            cand[j] = ci[j, SIDE] != ci[m, SIDE] and st[STATUS, j] == STANDING and dd <= si[s, S_REACH]
            n_cand += cand[j]
            if scores:
                health[j] = st[BODYV, j]
                dist[j] = dd
        wt = drawn(dr, 0)
        u = keyed.uniform_words(wt[0], wt[1]) if n_cand > 1 else 0.0
        tgt = choose_counted(wk[1 + 2 * C + m], cand, n_cand, health, dist, fo[ci[m, SIDE]], u)
        if tgt < 0:
            continue
        st[ATTACKS, m] += 1
        dmg = roll_drawn(drawn(dr, 1), si[s, S_COUNT], si[s, S_SIDES], si[s, S_BONUS], seed, ctx, SITE_MON_DAMAGE, s, 0)
        emit(ev, cnt, ctx, E_MON_ATTACK, m, tgt, s, dmg, 0, 0)
        d = strike(K, st, m, tgt, dmg, si[s, S_MASK], si[s, S_MISSILE] == 1, si[s, S_MAGICAL] == 1, slot_mean(K, s), s,
                   True, seed, ctx, ev, cnt)
        if d > 0:
            st[HITS, m] += 1


@once
def _end_round(K, st, ctx, ev, cnt):
    ci, R = K[0], K[2]
    for c in range(st.shape[1]):
        if ci[c, IS_CHAR] == 0:
            continue
        standing = st[STATUS, c] == STANDING
        left = max(st[MOM, c], 0) if standing else 0
        gain = 0
        if R[R_RECOVERY] == 1 and standing:
            gain = min(left, ci[c, BODY] - st[BODYV, c])
            st[BODYV, c] += gain
            st[RECOVERED, c] += gain
        if standing or st[START_MOM, c]:
            emit(ev, cnt, ctx, E_END, c, st[START_MOM, c], st[START_MOM, c] - st[MOM, c], left, gain, st[BODYV, c])


@once
def play_round(K, P, st, F, seed, ctx, ev, cnt):
    rnd = ctx[RND]
    emit(ev, cnt, ctx, E_ROUND, rnd, 0, 0, 0, 0, 0)
    _start_round(K, st, rnd, ctx, ev, cnt)
    if K[2][R_USES_FOCUS] == 1:
        _update_focus(K, st, seed, ctx, ev, cnt)
    for early in range(1, -1, -1):  # one call site, so the phase is inlined once
        _phase(K, P, st, early, F, seed, ctx, ev, cnt)
        if early == 1:
            emit(ev, cnt, ctx, E_PHASE, 0, 0, 0, 0, 0, 0)
            _monsters(K, P, st, F, seed, ctx, ev, cnt)
            emit(ev, cnt, ctx, E_PHASE, 1, 0, 0, 0, 0, 0)
    _end_round(K, st, ctx, ev, cnt)


@rule
def _place(K, st, zi, seed, ctx, ev, cnt):
    """Starting cells: the formation's, scattered sides drawing theirs from their zone."""
    ci, R = K[0], K[2]
    zones, zone_len = K[0][R[R_OFF_ZONES]:], K[0][R[R_OFF_ZLEN]]
    for i in range(st.shape[1]):
        st[PX, i], st[PY, i] = ci[i, START_X], ci[i, START_Y]
    for s in range(R[R_SIDES]):
        z = zone_len[s]
        if z == 0:
            continue
        for k in range(z):
            zi[k] = k
        k = 0
        for i in range(st.shape[1]):
            if ci[i, SCATTER] == 1 and ci[i, SIDE] == s:  # a partial shuffle, one keyed pick per member
                j = k + keyed.pick(z - k, seed, ctx[SK], 0, SITE_PLACE, s, k)
                zi[k], zi[j] = zi[j], zi[k]
                cell = zones[s * R[R_ZMAX] + zi[k]]
                st[PX, i], st[PY, i] = cell[0], cell[1]
                k += 1
    if R[R_SPATIAL] == 1:
        for i in range(st.shape[1]):
            emit(ev, cnt, ctx, E_START, i, st[PX, i], st[PY, i], 0, 0, 0)


@once
def _begin(K, st, has_start, start, row, zi, seed, ctx, ev, cnt):
    ci, R = K[0], K[2]
    st[:, :] = 0
    for i in range(st.shape[1]):
        st[BODYV, i] = ci[i, BODY]
        st[ITEMS, i] = ci[i, ITEM_USES]
        st[FORMED, i] = ci[i, AUTO_CAST]
        st[BRACKET, i] = -1
        if has_start:
            if start[0, row, i] >= 0:
                st[BODYV, i] = start[0, row, i]
            st[VOID, i] = max(start[1, row, i], 0)
            st[COND, i] = max(start[2, row, i], 0)
            if start[3, row, i] >= 0:
                st[ITEMS, i] = start[3, row, i]
            if st[BODYV, i] <= 0:
                st[STATUS, i] = 1
    fo = focus_of(K, ctx)
    for s in range(fo.shape[0]):
        fo[s] = -1
    ctx[RND] = 0
    _place(K, st, zi, seed, ctx, ev, cnt)
    for i in range(st.shape[1]):
        if ci[i, IS_CHAR] == 1:
            st[BRACKET, i] = challenge(K, i, ci[i, INIT_AB], ci[i, INIT_TN], 0, 0, seed, ctx, SITE_INIT, i, 0, ev, cnt)
            emit(ev, cnt, ctx, E_INIT, i, st[BRACKET, i], 0, 0, 0, 0)
    if R[R_SURPRISE] > 0:
        emit(ev, cnt, ctx, E_SURPRISE, R[R_SURPRISE], 0, 0, 0, 0, 0)


@once
def _winner(K, st):
    """The side still standing, DRAW when nobody stands, -3 while two or more sides stand."""
    ci = K[0]
    side = -1
    for i in range(st.shape[1]):
        if st[STATUS, i] == STANDING:
            if side >= 0 and ci[i, SIDE] != side:
                return -3
            side = ci[i, SIDE]
    return side if side >= 0 else DRAW


@once
def _unchanged(st, snap):
    same = True
    for r in range(SNAP_ROWS.shape[0]):
        for i in range(st.shape[1]):
            v = st[SNAP_ROWS[r], i]
            if snap[r, i] != v:
                same = False
                snap[r, i] = v
    return same


@kernel
def play_kernel(K, P, seed, first, n, max_rounds, has_start, start, out, winner, rounds, stalled, st, snap, ctx, F,
                zi, ev, cnt, traced):
    """Play skirmishes first .. first + n - 1 into out (columns OUT_COLUMNS, (k, n, C)),
    winner and rounds; the skirmish numbered `traced` writes its events. ctx and F are
    the integer and float scratch (kcore.focus_of .. stack_of)."""
    for row in range(n):
        ctx[SK] = first + row
        ctx[TRACING] = 1 if first + row == traced else 0
        _begin(K, st, has_start, start, row, zi, seed, ctx, ev, cnt)
        w, played, quiet = UNFINISHED, max_rounds, 0
        for rnd in range(1, max_rounds + 1):
            ctx[RND] = rnd
            play_round(K, P, st, F, seed, ctx, ev, cnt)
            res = _winner(K, st)
            if res != -3:
                w, played = res, rnd
                break
            if max_rounds > STALL_ROUNDS:
                quiet = quiet + 1 if _unchanged(st, snap) else 0
                if quiet >= STALL_ROUNDS:
                    played = rnd
                    stalled[0] += 1
                    emit(ev, cnt, ctx, E_STALL, rnd, 0, 0, 0, 0, 0)
                    break
        winner[row] = w
        rounds[row] = played
        for k in range(OUT_ROWS.shape[0]):
            for i in range(st.shape[1]):
                out[k, row, i] = st[OUT_ROWS[k], i]
