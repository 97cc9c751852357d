"""One creature's turn in the Lifeforce kernel: grapple check, plan, declaration, movement, action.

"On your Turn, you perform Movement and may begin preparing an Action of your choice or
may execute that Action if you have acquired the required number of Action Points."
"""
from __future__ import annotations


from sim import keyed
from sim.events import emit
from sim.rulesets.lifeforce import katt as A
from sim.rulesets.lifeforce import kdecide as P
from sim.rulesets.lifeforce import kgrid as grid
from sim.rulesets.lifeforce import ktrace as E
from sim.rulesets.lifeforce.kpack import XP, context, unpack
from sim.rulesets.lifeforce.layout import (
    K_ESCAPE, K_RANGED_W, K_SPLIT0,
    R_ANY_LOADING, R_ATTACK_DIE, R_CHARGE_MOVES_ATTACK, R_FIRST_IMMEDIATE, R_GRAPPLE_REROLL, R_HEIGHT, R_HELD_KEEPS,
    R_LOADING_AP, R_METRIC, R_NO_ACTIONS_SURPRISE, R_PREP_DECLARED, R_READIED_NEXT_TURN, R_WIDTH,
    S_CDX, S_CDY, S_CHARGES, S_CONTESTING, S_DISARMED, S_DOMINANT, S_DS, S_GCHECKED, S_GCWON, S_GWON, S_LOADED,
    S_NGRAP, S_PARTNER, S_PREP_ACTION, S_PREP_AP, S_PREP_TARGET, S_PRONE, S_READY, S_STATUS, S_TARGET, S_TRACK,
    S_X, S_Y, S_DOWN_ROUND,
    W_LOADING, W_RANGE, W_REACH, W_UNARMED)
from sim.jit import once, rule

TIE_RETRIES = 16  # rerolled ties: sixteen in a row is as good as never


# A `rule`, not `once`: a call per turn, one packed argument, and LLVM optimizes it as a
# function of its own instead of inside play_chunk (a cold compile 13 CPU-s shorter, the
# same speed within noise: docs/performance.md, "Compile cost").
@rule
def take_turn(PK, a):
    T, X = unpack(PK)
    G, seed, ev, cnt = context(PK)
    K, R = T[0], T[2]
    S = X[0]
    if S[a, S_STATUS] != A.STANDING:
        return
    S[a, S_DS] = 0  # "until your next turn"
    if R[R_READIED_NEXT_TURN]:
        S[a, S_READY] = A.READY_NONE
    if R[R_NO_ACTIONS_SURPRISE] and A.flat_footed(K, G, a):
        if G[3]:
            emit(ev, cnt, E.EV_SURPRISED, G[1], a, 0, 0, 0, 0, 0)
        return
    if S[a, S_TRACK] > 0 and S[a, S_DOMINANT] and not S[a, S_GCHECKED]:
        grapple_check(X[XP], a)
    if S[a, S_CONTESTING]:
        if G[3]:
            emit(ev, cnt, E.EV_CONTESTS, G[1], a, 0, 0, 0, 0, 0)
        return
    why_target = P.update_target(T, X, G, seed, a)
    desired, move, goal, stop, why = P.plan(T, X, G, seed, a, why_target)
    if desired == P.FLEE:
        S[a, S_STATUS] = A.FLED
        S[a, S_DOWN_ROUND] = G[1]
        A.end_grapple(S, a)
        if G[3]:
            emit(ev, cnt, E.EV_FLEE, G[1], a, 0, 0, 0, 0, 0)
        return
    desired = declare(T, X, G, ev, cnt, a, desired, why, why_target)
    do_move(T, X, G, seed, ev, cnt, a, desired, move, goal, stop)
    act(T, X, G, seed, ev, cnt, a, desired)


@once
def declare(T, X, G, ev, cnt, a, desired, why, why_target):
    """Begin a new preparation where the choice differs from it; returns the action the turn works on."""
    R = T[2]
    S = X[0]
    if P.no_prep(desired):
        return desired
    ready = S[a, S_READY]
    if (desired == P.BLOCK and ready == A.READY_BLOCK) or (desired == P.OPPORTUNITY and ready == A.READY_OPPORTUNITY):
        # Declaring what is already readied begins nothing: the readied one is kept.
        if G[3]:
            emit(ev, cnt, E.EV_KEEP_READY, G[1], a, desired, 0, 0, 0, 0)
        return P.HOLD
    cur = S[a, S_PREP_ACTION]
    tgt = S[a, S_TARGET]
    switch = desired != cur
    retarget = False
    if R[R_PREP_DECLARED] and P.targeted(desired) and not switch and tgt != S[a, S_PREP_TARGET]:
        old = S[a, S_PREP_TARGET]
        if old >= 0 and S[old, S_STATUS] != A.STANDING:
            # Its target fell: the preparation turns on the next one (no GM makes a
            # crossbowman reload because his mark dropped).
            S[a, S_PREP_TARGET] = tgt
            if G[3] and S[a, S_PREP_AP] > 0:
                emit(ev, cnt, E.EV_RETARGET_PREP, G[1], a, desired, tgt, S[a, S_PREP_AP], 0, 0)
        else:
            retarget = True
    if not (switch or retarget):
        return desired
    lost = S[a, S_PREP_AP]
    reason = why if switch else (why_target if why_target != E.WHY_NEW_TARGET else E.WHY_NEW_TARGET)
    S[a, S_PREP_ACTION] = desired
    S[a, S_PREP_AP] = 0
    S[a, S_PREP_TARGET] = tgt if P.targeted(desired) else -1
    S[a, S_READY] = A.READY_NONE  # beginning another action drops a readied one
    if desired == P.CHARGE:
        if tgt >= 0:
            S[a, S_CDX] = grid.sign(S[tgt, S_X] - S[a, S_X])
            S[a, S_CDY] = grid.sign(S[tgt, S_Y] - S[a, S_Y])
        else:
            S[a, S_CDX], S[a, S_CDY] = 0, 0
    if G[3]:
        emit(ev, cnt, E.EV_DECLARE, G[1], a, desired, tgt if P.targeted(desired) else -1, max(cur, 0), lost,
             reason)
    return desired


@once
def do_move(T, X, G, seed, ev, cnt, a, desired, move, goal, stop):
    K, W, R = T[0], T[1], T[2]
    S, D, Q = X[0], X[1], X[2]
    allow = K[a, K_SPLIT0 + G[2]]
    if desired == P.RUN:
        allow *= 2  # "Double your Movement for this Action Phase"
    if move == P.LINE:
        moves = S[a, S_PREP_AP] == 0 or R[R_CHARGE_MOVES_ATTACK] != 0
        allow = max(allow, 1) if moves else 0  # "minimum of 1M"
        pt = max(S[a, S_PREP_TARGET], 0)
        reach = W[A.melee_weapon(K, S, a), W_REACH]
        steps = grid.line_steps(S[a, S_X], S[a, S_Y], S[a, S_CDX], S[a, S_CDY], S[pt, S_X], S[pt, S_Y], reach,
                                allow)
        if steps > 0:
            allow = steps  # "up to your Action Phase Movement": it stops once in reach
    if move == P.NO_MOVE or allow <= 0 or goal < 0:
        return
    if move == P.TOWARD and D[a, goal] <= stop:
        return
    for j in range(S.shape[0]):
        Q[0, A.Q_DIST + j] = D[a, j]
    x0, y0 = S[a, S_X], S[a, S_Y]
    if move == P.LINE:
        grid.line(S, X[15], a, S[a, S_CDX], S[a, S_CDY], allow, R[R_WIDTH], R[R_HEIGHT])
    else:
        grid.walk(S, X[15], a, goal, allow, stop, move == P.AWAY, R[R_METRIC], R[R_WIDTH], R[R_HEIGHT])
    if S[a, S_X] == x0 and S[a, S_Y] == y0:
        return
    grid.refresh(S, D, a, R[R_METRIC])
    if G[3]:
        emit(ev, cnt, E.EV_MOVE, G[1], a, desired, x0, y0, S[a, S_X], S[a, S_Y])
    A.opportunity_attacks(T, X, G, seed, ev, cnt, a, A.TRIGGER_MOVES)


@once
def act(T, X, G, seed, ev, cnt, a, desired):
    """One more action point; the prepared action is made once it has its Activation Time."""
    K, W, R, NEED = T[0], T[1], T[2], T[17]
    S, D = X[0], X[1]
    prep = S[a, S_PREP_ACTION]
    if S[a, S_STATUS] != A.STANDING or prep < 0 or P.no_prep(desired):
        return
    ap = S[a, S_PREP_AP] + 1
    S[a, S_PREP_AP] = ap
    need = NEED[prep]
    tgt = S[a, S_PREP_TARGET] if R[R_PREP_DECLARED] else S[a, S_TARGET]
    tgt_ok = tgt >= 0 and S[tgt, S_STATUS] == A.STANDING
    d = D[a, max(tgt, 0)]
    mw = A.melee_weapon(K, S, a)
    rw = K[a, K_RANGED_W]
    shoots = rw >= 0 and S[a, S_DISARMED] == 0
    in_reach = tgt_ok and d <= W[mw, W_REACH]
    in_range = tgt_ok and shoots and d <= W[rw, W_RANGE] and not (in_reach and W[mw, W_UNARMED] == 0)
    w = rw if in_range else mw
    if prep == P.ATTACK and R[R_ANY_LOADING] and W[w, W_LOADING] and not S[a, S_LOADED]:
        need = 2 + R[R_LOADING_AP]
    ready = ap >= need
    done = False
    if ready:
        if prep == P.ATTACK:
            if in_reach or in_range:
                weapon_attack(T, X, G, seed, ev, cnt, a, tgt, w, in_range)
                done = True
        elif prep == P.CHARGE:
            charge(T, X, G, seed, ev, cnt, a, tgt, in_reach, mw)
            done = True
        elif prep == P.GRAPPLE:
            engage(X[XP], a, tgt, tgt_ok and d <= 1)
            done = True
        elif prep == P.BLOCK:
            S[a, S_READY] = A.READY_BLOCK
            done = True
        elif prep == P.OPPORTUNITY:
            S[a, S_READY] = A.READY_OPPORTUNITY
            done = True
        elif prep == P.STAND:
            S[a, S_PRONE] = 0
            done = True
        elif prep == P.RECOVER:
            S[a, S_DISARMED] = 0
            done = True
        else:  # RUN: the doubled move was the action
            done = True
    if G[3] and not (done and P.targeted(prep)):
        emit(ev, cnt, E.EV_PREP, G[1], a, prep, ap, need, 1 if done else 0, 0)
    if done:
        S[a, S_PREP_AP], S[a, S_PREP_ACTION] = 0, -1
    elif ready:
        S[a, S_PREP_AP] = need  # fully prepared, it waits until it can be made


@once
def weapon_attack(T, X, G, seed, ev, cnt, a, tgt, w, ranged):
    W = T[1]
    S, D, Q = X[0], X[1], X[2]
    if ranged:
        # "when an enemy makes a Ranged Attack while within your Reach".
        for j in range(S.shape[0]):
            Q[0, A.Q_DIST + j] = D[a, j]
        A.opportunity_attacks(T, X, G, seed, ev, cnt, a, A.TRIGGER_SHOOTS)
        if S[a, S_STATUS] != A.STANDING:
            return
    if W[w, W_LOADING]:
        S[a, S_LOADED] = 0  # Rapid Reload bought on this shot loads it again
    A.attack(T, X, G, seed, ev, cnt, a, tgt, w, 0, 0, A.VERB_ATTACK)


@once
def charge(T, X, G, seed, ev, cnt, a, tgt, in_reach, mw):
    """The charge's attack: +10 Offence and +2 damage against the target, or any enemy in reach."""
    W = T[1]
    S = X[0]
    victim = tgt if in_reach else P.nearest_within(T, X, G, seed, a, W[mw, W_REACH], 3)
    S[a, S_CHARGES] += 1
    if victim >= 0:
        A.attack(T, X, G, seed, ev, cnt, a, victim, mw, A.TB.CHARGE_OFFENCE, A.TB.CHARGE_DAMAGE, A.VERB_CHARGE)
    elif G[3]:
        emit(ev, cnt, E.EV_NO_CHARGE, G[1], a, 0, 0, 0, 0, 0)


@once
def _grapple_die(T, G, seed, a, ordinal, k):
    return keyed.die(T[2][R_ATTACK_DIE], seed, G[0], G[1], A.SITE_GRAPPLE, a, ordinal * 64 + k)


@once
def engage(PK, a, tgt, adjacent):
    """1 AP: contested Athletics (with Offence bonuses) to start a grapple as its dominant side."""
    T, X = unpack(PK)
    G, seed, ev, cnt = context(PK)
    K, R = T[0], T[2]
    S = X[0]
    tg = max(tgt, 0)
    ok = adjacent and S[a, S_PARTNER] < 0 and S[tg, S_PARTNER] < 0
    mine, theirs = A.grapple_mod(K, R, a, True), A.grapple_mod(K, R, tg, False)
    n = S[a, S_NGRAP]
    S[a, S_NGRAP] = n + 1
    ti = _grapple_die(T, G, seed, a, n, 0) + mine
    td = _grapple_die(T, G, seed, a, n, 32) + theirs
    j = 1
    while R[R_GRAPPLE_REROLL] and ti == td and j < TIE_RETRIES:
        ti = _grapple_die(T, G, seed, a, n, 2 * j) + mine
        td = _grapple_die(T, G, seed, a, n, 32 + 2 * j) + theirs
        j += 1
    won = ok and ti > td  # "you must beat them"
    if won:
        S[a, S_PARTNER], S[tg, S_PARTNER] = tg, a
        S[a, S_TRACK], S[tg, S_TRACK] = A.GRAPPLING, A.GRAPPLING
        S[a, S_DOMINANT], S[tg, S_DOMINANT] = 1, 0
        S[a, S_GWON] += 1
        first = R[R_FIRST_IMMEDIATE] != 0
        S[a, S_GCHECKED] = S[tg, S_GCHECKED] = 0 if first else 1
        S[a, S_CONTESTING] = S[tg, S_CONTESTING] = 1 if first else 0
    if G[3]:
        emit(ev, cnt, E.EV_ENGAGE, G[1], a, tg, ti, td, 1 if ok else 0, 1 if won else 0)
    if won and R[R_FIRST_IMMEDIATE]:
        grapple_check(X[XP], a)


@once
def _kept(first, second, advantage):
    if advantage > 0:
        return max(first, second)
    if advantage < 0:
        return min(first, second)
    return first


@rule
def grapple_check(PK, a):
    """The dominant grappler's turn: both roll; the winner is dominant, progressing if it was."""
    T, X = unpack(PK)
    G, seed, ev, cnt = context(PK)
    K, R = T[0], T[2]
    S = X[0]
    b = S[a, S_PARTNER]
    level = S[a, S_TRACK]
    mod_a, mod_b = A.grapple_mod(K, R, a, False), A.grapple_mod(K, R, b, False)
    # Pinned grants the dominant grappler advantage; not contesting gives disadvantage.
    adv_a = (1 if level == A.PINNED else 0) - (0 if S[a, S_CONTESTING] else 1)
    adv_b = -(0 if S[b, S_CONTESTING] else 1)
    n = S[a, S_NGRAP]
    S[a, S_NGRAP] = n + 1
    ta = tb = 0
    for j in range(TIE_RETRIES):
        # A tie rerolled (grapple_ties: reroll) is a whole new check, advantage and all.
        ta = _kept(_grapple_die(T, G, seed, a, n, 2 * j), _grapple_die(T, G, seed, a, n, 2 * j + 1), adv_a) + mod_a
        tb = _kept(_grapple_die(T, G, seed, a, n, 32 + 2 * j), _grapple_die(T, G, seed, a, n, 33 + 2 * j),
                   adv_b) + mod_b
        if ta != tb or not R[R_GRAPPLE_REROLL]:
            break
    a_wins, b_wins = ta > tb, tb > ta
    new_level = min(level + 1, A.PINNED) if a_wins else level
    a_dom = not b_wins
    S[a, S_TRACK] = S[b, S_TRACK] = new_level
    S[a, S_DOMINANT], S[b, S_DOMINANT] = (1, 0) if a_dom else (0, 1)
    S[a, S_GCHECKED] = S[b, S_GCHECKED] = 1
    if a_wins:
        S[a, S_GCWON] += 1
    if b_wins:
        S[b, S_GCWON] += 1
    under = b if a_dom else a
    if new_level == A.PINNED:
        S[under, S_PRONE] = 1  # "causing the non dominant grappler to become Prone"
    if not R[R_HELD_KEEPS] and new_level >= A.HELD:
        S[under, S_PREP_AP], S[under, S_PREP_ACTION] = 0, -1
    top = a if a_dom else b
    if G[3]:
        emit(ev, cnt, E.EV_GCHECK, G[1], a, b, ta, tb, top, new_level)
    # "If after the grappling check you are the dominant grappler, you may choose to immediately end the grapple."
    if K[top, K_ESCAPE]:
        A.end_grapple(S, top)
        if G[3]:
            emit(ev, cnt, E.EV_GEND, G[1], top, 1, 0, 0, 0, 0)
