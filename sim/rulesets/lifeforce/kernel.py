"""The Lifeforce kernel: every skirmish of a chunk played to its end, round by round.

A round: Seize the Initiative's Hastened moves on, Reactions come back, turn order
(net Hastened - Slowed, then Reaction, then d10 roll-offs, highest first), then four
action phases; in each, grapplers decide whether to contest, every creature takes its
turn in order, and Threatened counts down.
"""
from __future__ import annotations


from sim import keyed
from sim.events import emit
from sim.rulesets.lifeforce import katt as A
from sim.rulesets.lifeforce import kgrid as grid
from sim.rulesets.lifeforce import ktrace as E
from sim.rulesets.lifeforce.kduel import play_duel_chunk
from sim.rulesets.lifeforce.kstart import fresh_creature, new_round_creature
from sim.rulesets.lifeforce.korder import DRAW, ROLL_OFFS, TWO_POW_MINUS_32, UNFINISHED, goes_before
from sim.rulesets.lifeforce.kturn import take_turn
from sim.rulesets.lifeforce.kpack import XP, context, unpack
from sim.rulesets.lifeforce.layout import (
    K_CONTEST_MODE, K_ORDER_ATTR, K_SCATTER_SIDE, K_SIDE, K_X0, K_Y0,
    OUTCOME_INDEX, R_CARRY, R_METRIC, R_REROLL_EACH, R_STALL_CHECK,
    S_CONTESTING, S_DOMINANT, S_GCHECKED, S_HAST, S_HP, S_PARTNER, S_PREP_ACTION, S_PREP_AP, S_ROLL0, S_SLOW, S_STATUS,
    S_STUNTED, S_THREAT_BY, S_THREAT_LEFT, S_TRACK, S_X, S_Y, S_PRONE, S_DISARMED, START_WITH_CONDITIONS)
from sim.jit import kernel, once, rule

STALL_ROUNDS = 500  # as sim/engine.py: nothing changed for this long, nobody can hurt anybody


@once
def roll_offs(X, G, seed, rnd):
    """Each creature's three d10 roll-offs and final tie-break from one Philox block: the
    d10s from words 0-2, a 32-bit uniform from word 3 (a tie there, 1 in 2**32, goes to
    the lower index)."""
    S, RU = X[0], X[4]
    for c in range(S.shape[0]):
        w = keyed.block(seed, G[0], rnd, A.SITE_ROLLOFF, c, 0)
        for k in range(ROLL_OFFS):
            S[c, S_ROLL0 + k] = keyed.die_word(w[k], 10, seed, G[0], rnd, A.SITE_ROLLOFF, c, k)
        RU[c] = float(w[ROLL_OFFS]) * TWO_POW_MINUS_32


@once
def turn_order(K, X):
    """The creatures sorted into ORDER by goes_before, a strict total order (its last key is
    the index), so any correct sort gives the same order. A bottom-up merge sort with POSN
    as its buffer: insertion sort's C^2 / 4 comparisons were a twentieth of a round at
    300 a side."""
    S, RU, ORDER, POSN = X[0], X[4], X[11], X[13]
    C = S.shape[0]
    for c in range(C):
        ORDER[c] = c
    src, dst = ORDER, POSN
    in_buffer = False
    width = 1
    while width < C:
        for lo in range(0, C, 2 * width):
            mid, hi = min(lo + width, C), min(lo + 2 * width, C)
            i, j = lo, mid
            for k in range(lo, hi):
                if j >= hi or (i < mid and not goes_before(K, S, RU, src[j], src[i])):
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    j += 1
        src, dst = dst, src
        in_buffer = not in_buffer
        width *= 2
    if in_buffer:
        for c in range(C):
            ORDER[c] = src[c]
    for i in range(C):
        POSN[ORDER[i]] = i


@once
def start_phase(T, X, G, ev, cnt):
    """Both grapplers decide whether to contest; if neither does, the grapple ends."""
    K = T[0]
    S = X[0]
    C = S.shape[0]
    for c in range(C):
        S[c, S_STUNTED] = 0
        S[c, S_GCHECKED] = 0
        track = S[c, S_TRACK]
        mode = K[c, K_CONTEST_MODE]  # 0 always, 1 until_pinned, 2 never
        dom_pinned = S[c, S_DOMINANT] != 0 and track == A.PINNED
        contest = mode == 0 or (mode == 1 and not dom_pinned)
        # Held or Pinned creatures can do nothing else, so they struggle unless told never to.
        stuck = S[c, S_DOMINANT] == 0 and track >= A.HELD
        S[c, S_CONTESTING] = 1 if track > 0 and (contest or (stuck and mode != 2)) else 0
    for c in range(C):
        p = S[c, S_PARTNER]
        if p >= 0 and not S[c, S_CONTESTING] and not S[p, S_CONTESTING]:
            A.end_grapple(S, c)
            if G[3]:
                emit(ev, cnt, E.EV_GEND, G[1], c, 0, 0, 0, 0, 0)


@once
def winner_now(T, S, ORDER, ordered):
    """The side left standing, DRAW when none is, or UNFINISHED while two or more are.
    Scanned in turn order where there is one (`ordered`), which mixes the sides, so a
    second standing side turns up within a few creatures, not after a whole side."""
    K = T[0]
    first = -1
    for i in range(S.shape[0]):
        c = ORDER[i] if ordered else i
        if S[c, S_STATUS] == A.STANDING:
            if first < 0:
                first = K[c, K_SIDE]
            elif K[c, K_SIDE] != first:
                return UNFINISHED
    return first if first >= 0 else DRAW


@rule
def trace_round(PK, G, ev, cnt, rnd):
    T, X = unpack(PK)
    K = T[0]
    S, ORDER = X[0], X[11]
    emit(ev, cnt, E.EV_ROUND, rnd, 0, 0, 0, 0, 0, 0)
    for i in range(S.shape[0]):
        c = ORDER[i]
        if S[c, S_STATUS] == A.STANDING:
            emit(ev, cnt, E.EV_ORDER, rnd, c, K[c, K_ORDER_ATTR], S[c, S_HP], S[c, S_HAST] - S[c, S_SLOW], 0, 0)
    for c in range(S.shape[0]):
        emit(ev, cnt, E.EV_POS, rnd, c, S[c, S_X], S[c, S_Y], S[c, S_STATUS], 0, 0)


@once
def play_round(T, X, G, seed, ev, cnt, rnd):
    """One round; returns the winner code (UNFINISHED while the fight goes on)."""
    K, R = T[0], T[2]
    S, ORDER = X[0], X[11]
    C = S.shape[0]
    G[1] = rnd
    for c in range(C):
        new_round_creature(S, c)
    if R[R_REROLL_EACH] and rnd > 1:
        roll_offs(X, G, seed, rnd)
    turn_order(K, X)
    if G[3]:
        trace_round(X[XP], G, ev, cnt, rnd)
    result = UNFINISHED
    for p in range(4):
        G[2] = p
        start_phase(T, X, G, ev, cnt)
        if G[3]:
            emit(ev, cnt, E.EV_PHASE, rnd, p, 0, 0, 0, 0, 0)
        for k in range(C):
            if S[ORDER[k], S_STATUS] != A.STANDING:
                continue  # the fallen take no turn: not even the call
            take_turn(X[XP], ORDER[k])
            result = winner_now(T, S, ORDER, True)
            if result != UNFINISHED:
                break
        for c in range(C):
            if S[c, S_THREAT_LEFT] > 0:
                S[c, S_THREAT_LEFT] -= 1
            if S[c, S_THREAT_LEFT] <= 0:
                S[c, S_THREAT_BY] = -1
        if result != UNFINISHED:
            return result
    if not R[R_CARRY]:
        for c in range(C):
            S[c, S_PREP_AP], S[c, S_PREP_ACTION] = 0, -1
    return result


@once
def place(T, X, G, seed):
    """Starting cells: the layout's, and for scattered sides distinct cells of their zone
    drawn per skirmish (a partial Fisher-Yates shuffle with keyed picks)."""
    K, ZONE, ZFIRST = T[0], T[15], T[16]
    S, PERM = X[0], X[12]
    for c in range(S.shape[0]):
        S[c, S_X], S[c, S_Y] = K[c, K_X0], K[c, K_Y0]
    for s in range(ZFIRST.shape[0] - 1):
        lo, hi = ZFIRST[s], ZFIRST[s + 1]
        m = hi - lo
        if m <= 0:
            continue
        for i in range(m):
            PERM[i] = lo + i
        taken = 0
        for c in range(S.shape[0]):
            if K[c, K_SCATTER_SIDE] == s:
                j = taken + keyed.pick(m - taken, seed, G[0], 0, A.SITE_PLACE, s, taken)
                PERM[taken], PERM[j] = PERM[j], PERM[taken]
                S[c, S_X], S[c, S_Y] = ZONE[PERM[taken], 0], ZONE[PERM[taken], 1]
                taken += 1


@once
def init_skirmish(T, X, G, seed, START, i, has_start):
    K = T[0]
    S, D, FOCUS = X[0], X[1], X[5]
    for c in range(S.shape[0]):
        fresh_creature(K, S, c)
        if has_start:
            S[c, S_HP] = START[i, c, 0]
            S[c, S_STATUS] = START[i, c, 1]
            S[c, S_PRONE] = START[i, c, 2]
            S[c, S_DISARMED] = START[i, c, 3]
    for s in range(FOCUS.shape[0]):
        FOCUS[s] = -1
    place(T, X, G, seed)
    grid.refresh_all(S, D, T[2][R_METRIC])
    roll_offs(X, G, seed, 0)


@once
def fingerprint(S):
    """What a stall would leave unchanged (not the tallies that tick every round)."""
    h = 0
    for c in range(S.shape[0]):
        h = h * 1000003 + S[c, S_HP] * 7 + S[c, S_STATUS] * 131 + S[c, S_X] * 8191 + S[c, S_Y] * 524287
        h = h * 31 + S[c, S_TRACK] * 3 + S[c, S_PREP_ACTION] * 5 + S[c, S_PREP_AP] * 11 + S[c, S_PRONE]
        h = h & 0xFFFFFFFF  # small enough that the next multiply cannot overflow
    return h


@kernel
def play_chunk(P, first, max_rounds, traced, START, has_start, OUT, WIN, ROUNDS, STALLED, duel, DUEL_BUY):
    """Skirmishes first .. first + len(WIN) - 1, each to its end or max_rounds. OUT is
    (column, skirmish, combatant) so that each outcome column is one contiguous block;
    P holds the tables, scratch and run context (kpack). A duel (kduel_tables.duel_tables)
    plays in the fused duel loop unless a skirmish is traced, the start carries anyone
    prone or disarmed (layout.START_WITH_CONDITIONS) or stalls are
    watched for: the same fights."""
    T, X = unpack(P)
    fused = duel and has_start != START_WITH_CONDITIONS and not T[2][R_STALL_CHECK]
    if fused and not first <= traced < first + WIN.shape[0]:
        play_duel_chunk(P, DUEL_BUY, first, max_rounds, START, has_start, OUT, WIN, ROUNDS)
        return
    G, seed, ev, cnt = context(P)
    S = X[0]
    for i in range(WIN.shape[0]):
        G[0] = first + i
        G[1], G[2] = 0, 0
        G[3] = 1 if first + i == traced else 0
        init_skirmish(T, X, G, seed, START, i, has_start)
        result = winner_now(T, S, X[11], False)
        rnd = 0
        last_change, last_print = 0, fingerprint(S) if T[2][R_STALL_CHECK] else 0
        while result == UNFINISHED and rnd < max_rounds:
            rnd += 1
            result = play_round(T, X, G, seed, ev, cnt, rnd)
            if T[2][R_STALL_CHECK]:
                now = fingerprint(S)
                if now != last_print:
                    last_print, last_change = now, rnd
                elif rnd - last_change >= STALL_ROUNDS:
                    STALLED[i] = 1
                    break
        WIN[i] = result
        ROUNDS[i] = rnd
        for k in range(OUTCOME_INDEX.shape[0]):
            for c in range(S.shape[0]):
                OUT[k, i, c] = S[c, OUTCOME_INDEX[k]]
