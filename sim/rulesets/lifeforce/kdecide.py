"""Choosing in the Lifeforce kernel: targets, the family's plan, scripted rules, observations.

One creature at a time, in the order the NumPy engine decided its rows: keep or re-pick
the target, let the family choose an action and a way to move, let conditions forbid,
let scripted rules override, and let conditions forbid again (a Held creature begins
nothing, whatever its rules say).
"""
from __future__ import annotations


from sim import keyed, policy_vm, targeting
from sim.rulesets.lifeforce import katt as A
from sim.rulesets.lifeforce import kgrid as grid
from sim.rulesets.lifeforce import ktrace as E
from sim.rulesets.lifeforce.kpack import XP, unpack
from sim.rulesets.lifeforce.layout import (
    K_ABANDON_MELEE, K_ANSWER, K_DEFAULT_PLAY, K_FAMILY, K_REACT_AOO, K_HAS_SHIELD, K_HP, K_KEEP_CELLS,
    K_RANGED_W, K_READY_PREF, K_RUN,
    K_SIDE, K_TARGET_MODE, K_WANTS_NEAREST, K_SCRIPTED, K_SPLIT0,
    R_ANY_FOCUS, R_ANY_LOADING, R_ATTACK_DIE, R_CHARGE_MOVES_ATTACK, R_GRAPPLE_REROLL, R_LOADING_AP, R_RECOVER_AP,
    S_LOADED, W_LOADING,
    S_DISARMED, S_DOMINANT, S_HP, S_PARTNER, S_PREP_ACTION, S_PREP_AP, S_PREP_TARGET, S_PRONE,
    S_REACTION_LEFT, S_READY, S_STATUS, S_TARGET, S_THREAT_BY, S_TRACK, S_X, S_Y,
    W_RANGE, W_REACH, W_UNARMED)
from sim.jit import once

ATTACK, CHARGE, RUN, GRAPPLE, BLOCK, OPPORTUNITY, HOLD, STEP_BACK, FLEE, STAND, RECOVER = range(11)
STEADY, CHARGER, SKIRMISHER, GUARDIAN, GRAPPLER = range(5)
NO_MOVE, TOWARD, AWAY, LINE = range(4)
RUN_NEVER, RUN_TWO_AWAY, RUN_WHEN_IT_PAYS = range(3)  # K_RUN (kplay._run_codes)
OBSERVATIONS = ("round", "phase", "hp", "health", "distance", "target_distance", "in_reach", "prepared",
                "reaction_left", "grappled", "dominant", "grapple_track", "prone", "disarmed", "threatened",
                "threat_declared", "allies_standing", "enemies_standing")
(O_ROUND, O_PHASE, O_HP, O_HEALTH, O_DISTANCE, O_TARGET_DISTANCE, O_IN_REACH, O_PREPARED, O_REACTION_LEFT,
 O_GRAPPLED, O_DOMINANT, O_TRACK, O_PRONE, O_DISARMED, O_THREATENED, O_THREAT_DECLARED, O_ALLIES,
 O_ENEMIES) = range(len(OBSERVATIONS))
FAR = grid.FAR


@once
def no_prep(action):
    """Choices that prepare nothing and keep what is prepared."""
    return action == HOLD or action == STEP_BACK or action == FLEE


@once
def targeted(action):
    return action == ATTACK or action == CHARGE or action == GRAPPLE


@once
def noise(G, seed, a, purpose):
    return keyed.uniform(seed, G[0], G[1], A.SITE_TARGET, a, G[2] * 8 + purpose)


@once
def tie_noise(CAND, G, seed, a, purpose):
    """noise() where it can matter: with fewer than two candidates every mode's choice is
    the same whatever the draw, so it is not drawn (the same choices, fewer evaluations)."""
    return noise(G, seed, a, purpose) if targeting.count(CAND) > 1 else 0.0


@once
def pick_target(PK, G, seed, a, mode):
    """A new target by mode; a side without a standing focus adopts a focus-mode pick."""
    T, X = unpack(PK)
    K = T[0]
    S, D, FOCUS, CAND, HEALTH, DIST = X[0], X[1], X[5], X[6], X[7], X[8]
    for j in range(S.shape[0]):
        CAND[j] = A.is_enemy(K, a, j) and S[j, S_STATUS] == A.STANDING
        HEALTH[j] = S[j, S_HP]
        DIST[j] = D[a, j]
    side = K[a, K_SIDE]
    focus = FOCUS[side]
    ok = focus >= 0 and CAND[focus]
    chosen = targeting.choose(mode, CAND, HEALTH, DIST, focus if ok else -1, tie_noise(CAND, G, seed, a, 0))
    if mode == targeting.FOCUS and not ok and chosen >= 0:
        FOCUS[side] = chosen
    return chosen


@once
def nearest_enemy(K, S, D, a):
    best, best_d = -1, FAR
    for j in range(S.shape[0]):
        if A.is_enemy(K, a, j) and S[j, S_STATUS] == A.STANDING and D[a, j] < best_d:
            best, best_d = j, D[a, j]
    return best


@once
def nearest_within(T, X, G, seed, a, reach, purpose):
    """The nearest standing enemy within `reach` of a, ties broken at random, or -1."""
    K = T[0]
    S, D, CAND, HEALTH, DIST = X[0], X[1], X[6], X[7], X[8]
    for j in range(S.shape[0]):
        CAND[j] = A.is_enemy(K, a, j) and S[j, S_STATUS] == A.STANDING and D[a, j] <= reach
        HEALTH[j] = 0.0
        DIST[j] = D[a, j]
    return targeting.choose(targeting.NEAREST, CAND, HEALTH, DIST, -1, tie_noise(CAND, G, seed, a, purpose))


@once
def update_target(T, X, G, seed, a):
    """Keep a standing target (forced by Threaten or a grapple), else re-pick; returns why it changed."""
    K, W = T[0], T[1]
    S, D = X[0], X[1]
    cur = S[a, S_TARGET]
    before = cur
    why = E.WHY_NEW_TARGET
    ok = cur >= 0 and S[cur, S_STATUS] == A.STANDING
    mode = K[a, K_TARGET_MODE]
    if not ok or (mode == targeting.FOCUS and T[2][R_ANY_FOCUS]):
        new = pick_target(X[XP], G, seed, a, mode)
        if not ok:
            cur = new
    if K[a, K_ABANDON_MELEE]:
        reach = W[A.melee_weapon(K, S, a), W_REACH]
        if D[a, max(cur, 0)] > reach:
            best = nearest_within(T, X, G, seed, a, reach, 1)
            if best >= 0:
                cur = best
                why = E.WHY_TARGET_LEFT_REACH
    threat = S[a, S_THREAT_BY]
    if threat >= 0 and S[threat, S_STATUS] == A.STANDING:
        if cur != threat:
            why = E.WHY_THREAT
        cur = threat
    if S[a, S_PARTNER] >= 0:
        if cur != S[a, S_PARTNER]:
            why = E.WHY_GRAPPLE
        cur = S[a, S_PARTNER]
    S[a, S_TARGET] = cur
    return why if cur != before else E.WHY_NEW_TARGET


@once
def threats_declared(K, S, a):
    n = 0
    for j in range(S.shape[0]):
        if (A.is_enemy(K, a, j) and S[j, S_STATUS] == A.STANDING and S[j, S_PREP_AP] > 0
                and (S[j, S_PREP_ACTION] == ATTACK or S[j, S_PREP_ACTION] == CHARGE) and S[j, S_PREP_TARGET] == a):
            n += 1
    return n


@once
def turns_to_close(K, b, p, b_after, gap):
    """How many of b's turns from now its walk needs to cover `gap` squares (0 if none):
    its next turn is in this phase `p` when it acts after the one asking, else in the next."""
    if gap <= 0:
        return 0
    first = p if b_after else p + 1
    done = 0
    for k in range(1, 64):
        done += K[b, K_SPLIT0 + (first + k - 1) % 4]
        if done >= gap:
            return k
    return 64


@once
def run_pays(K, a, b, p, gap, b_after, their_cap):
    """Whether Running now lands a's 2 AP attack sooner than walking while preparing it.
    Run is the phase's action, so a runner arrives with the attack still to prepare; an
    enemy coming for a (its walk counted up to `their_cap` squares, where it would stop)
    shortens the walk. A tie walks: the attack arrives prepared."""
    mine, theirs = K[a, K_SPLIT0 + p], 0
    first = p if b_after else p + 1  # b's next turn
    for k in range(1, 64):
        mine += K[a, K_SPLIT0 + (p + k) % 4]
        theirs = min(theirs + K[b, K_SPLIT0 + (first + k - 1) % 4], their_cap)
        if mine + theirs >= gap:
            return False
        if k >= 2 and mine + K[a, K_SPLIT0 + p] + theirs >= gap:
            return True
    return True


@once
def approach(T, X, a, b):
    """How far b will walk toward a (0 unless b is coming for a: it moves toward its
    target, which is a or not yet chosen, and may move), up to where it would stop."""
    K, W, COND = T[0], T[1], T[3]
    S, D = X[0], X[1]
    fam = K[b, K_FAMILY]
    t = S[b, S_TARGET]
    if (S[b, S_STATUS] != A.STANDING or fam == GUARDIAN or fam == SKIRMISHER or S[b, S_PARTNER] >= 0
            or (t >= 0 and t != a) or not A.cond_allows(S, COND, b, A.C_MOVES)):
        return 0
    return max(D[b, a] - strikes_within(K, W, S, b), 0)


@once
def strikes_within(K, W, S, b):
    """The distance b attacks from: its missile's range while it has one in hand, else its
    melee reach."""
    rw = K[b, K_RANGED_W]
    return W[rw, W_RANGE] if rw >= 0 and S[b, S_DISARMED] == 0 else W[A.melee_weapon(K, S, b), W_REACH]


@once
def block_in_time(T, X, G, a):
    """Whether a Shield Block begun now (2 AP) is ready before every declared attack on `a`
    lands: otherwise answering a threat throws away a phase for nothing. A declared Weapon
    Attack lands once prepared and once its maker has walked into reach."""
    K, W, NEED = T[0], T[1], T[17]
    S, D, POSN = X[0], X[1], X[13]
    mine = 2 - (S[a, S_PREP_AP] if S[a, S_PREP_ACTION] == BLOCK else 0)
    for j in range(S.shape[0]):
        if (A.is_enemy(K, a, j) and S[j, S_STATUS] == A.STANDING and S[j, S_PREP_AP] > 0
                and (S[j, S_PREP_ACTION] == ATTACK or S[j, S_PREP_ACTION] == CHARGE) and S[j, S_PREP_TARGET] == a):
            theirs = NEED[S[j, S_PREP_ACTION]] - S[j, S_PREP_AP]
            if S[j, S_PREP_ACTION] == ATTACK:
                rw = K[j, K_RANGED_W]
                shoots = rw >= 0 and S[j, S_DISARMED] == 0
                gap = D[j, a] - strikes_within(K, W, S, j)
                theirs = max(theirs, turns_to_close(K, j, G[2], POSN[j] > POSN[a], gap))
                if shoots and gap <= 0 and T[2][R_ANY_LOADING] and W[rw, W_LOADING] and not S[j, S_LOADED]:
                    theirs = max(theirs, 2 + T[2][R_LOADING_AP] - S[j, S_PREP_AP])  # kturn.act's reload
            if mine > theirs or (mine == theirs and POSN[a] > POSN[j]):
                return False
    return True


@once
def observe(PK, G, a, nearest):
    """Fill the observations a's rules read (and only those)."""
    T, X = unpack(PK)
    K, W, READS, CELL = T[0], T[1], T[14], T[18]
    S, D, OBS = X[0], X[1], X[9]
    tgt = S[a, S_TARGET]
    td = D[a, tgt] if tgt >= 0 else FAR
    for o in range(len(OBSERVATIONS)):
        if not READS[a, o]:
            continue
        v = 0.0
        if o == O_ROUND:
            v = G[1]
        elif o == O_PHASE:
            v = G[2] + 1
        elif o == O_HP:
            v = S[a, S_HP]
        elif o == O_HEALTH:
            v = S[a, S_HP] / K[a, K_HP]
        elif o == O_DISTANCE:
            v = (D[a, nearest] if nearest >= 0 else FAR) * CELL[0]
        elif o == O_TARGET_DISTANCE:
            v = td * CELL[0]
        elif o == O_IN_REACH:
            v = 1.0 if td <= W[A.melee_weapon(K, S, a), W_REACH] else 0.0
        elif o == O_PREPARED:
            v = S[a, S_PREP_AP]
        elif o == O_REACTION_LEFT:
            v = S[a, S_REACTION_LEFT]
        elif o == O_GRAPPLED:
            v = 1.0 if S[a, S_TRACK] > 0 else 0.0
        elif o == O_DOMINANT:
            v = S[a, S_DOMINANT]
        elif o == O_TRACK:
            v = S[a, S_TRACK]
        elif o == O_PRONE:
            v = S[a, S_PRONE]
        elif o == O_DISARMED:
            v = S[a, S_DISARMED]
        elif o == O_THREATENED:
            v = 1.0 if S[a, S_THREAT_BY] >= 0 else 0.0
        elif o == O_THREAT_DECLARED:
            v = threats_declared(K, S, a)
        else:
            n = 0
            for j in range(S.shape[0]):
                if S[j, S_STATUS] == A.STANDING and (A.is_enemy(K, a, j) == (o == O_ENEMIES)):
                    n += 1
            v = n
        OBS[o] = v


@once
def plan(T, X, G, seed, a, why_target):
    """(action, movement mode, whom to move toward / away from, stop distance, why) for a's turn."""
    K, W, R, COND = T[0], T[1], T[2], T[3]
    S, D = X[0], X[1]
    p = G[2]
    tgt = S[a, S_TARGET]
    has_tgt = tgt >= 0
    d = D[a, tgt] if has_tgt else FAR
    mw = A.melee_weapon(K, S, a)
    reach = W[mw, W_REACH]
    rw = K[a, K_RANGED_W]
    shoots = rw >= 0 and S[a, S_DISARMED] == 0
    rng = W[rw, W_RANGE] if shoots else 0
    mv, mv2 = K[a, K_SPLIT0 + p], K[a, K_SPLIT0 + (p + 1) % 4]
    in_reach = d <= reach
    melee_now = (in_reach and W[mw, W_UNARMED] == 0) or not shoots
    prep, pap = S[a, S_PREP_ACTION], S[a, S_PREP_AP]
    fam = K[a, K_FAMILY]
    nearest = nearest_enemy(K, S, D, a) if K[a, K_WANTS_NEAREST] else -1
    dn = D[a, nearest] if nearest >= 0 else FAR
    why = E.WHY_FAMILY if why_target == E.WHY_NEW_TARGET else why_target

    # Steady: attack; walk into reach (or range); run when it is two phases away.
    desired, move, goal = ATTACK, TOWARD, tgt
    stop = reach if melee_now else rng
    if K[a, K_RUN] and d - stop > mv + mv2 and not (prep == ATTACK and pap > 0):
        if K[a, K_RUN] == RUN_TWO_AWAY or not has_tgt or run_pays(K, a, tgt, p, d - stop, X[13][tgt] > X[13][a],
                                                    approach(T, X, a, tgt)):
            desired = RUN
    if K[a, K_DEFAULT_PLAY] and not shoots and charge_pays(T, X, a, tgt, in_reach, reach, mv, mv2, prep, pap):
        desired, move = CHARGE, LINE
    if fam == CHARGER:
        lands = charge_lands(T, X, a, max(tgt, 0), reach, mv, mv2)
        if (not in_reach and d - reach >= 1 and lands) or (prep == CHARGE and pap > 0):
            desired, move = CHARGE, LINE
        stop = reach
    elif fam == SKIRMISHER:
        # Keep its distance from the nearest enemy, but not by stepping out of its reach.
        if nearest >= 0 and shoots:
            their_reach = W[A.melee_weapon(K, S, nearest), W_REACH]
            if their_reach < dn < K[a, K_KEEP_CELLS]:
                move, goal, desired = AWAY, nearest, ATTACK
    elif fam == GUARDIAN:
        desired, move = _guard(T, X, G, seed, a, in_reach, reach, shoots, d, rng, prep, pap)
    elif fam == GRAPPLER:
        if S[a, S_PARTNER] < 0 and S[max(tgt, 0), S_PARTNER] < 0 and grapple_pays(X[XP], a, max(tgt, 0)):
            desired = RUN if (K[a, K_RUN] and d - 1 > mv) else GRAPPLE
            stop = 1
    inside = S[a, S_PARTNER] >= 0
    if inside:
        desired, move = ATTACK, NO_MOVE
    if K[a, K_ANSWER] and K[a, K_HAS_SHIELD] and not inside:
        # Answer a declared attack with a Shield Block only when it is ready in time and
        # nothing prepared is thrown away for it.
        if (threats_declared(K, S, a) > 0 and S[a, S_REACTION_LEFT] == 0 and S[a, S_READY] != A.READY_BLOCK
                and (pap == 0 or prep == BLOCK) and block_in_time(T, X, G, a)):
            desired, move, why = BLOCK, NO_MOVE, E.WHY_THREAT
    if S[a, S_PRONE] and not inside:
        desired, why = STAND, E.WHY_CONDITION
    elif R[R_RECOVER_AP] > 0 and S[a, S_DISARMED] and not inside:
        desired, move, why = RECOVER, NO_MOVE, E.WHY_CONDITION
    if not has_tgt or not A.cond_allows(S, COND, a, A.C_BEGINS):
        desired = HOLD
    if not has_tgt or not A.cond_allows(S, COND, a, A.C_MOVES):
        move = NO_MOVE
    if K[a, K_SCRIPTED]:
        desired, move, goal, stop, why = _scripted(X[XP], G, seed, a, desired, move, goal, stop, why, reach, rng,
                                                   melee_now, nearest)
    return desired, move, goal, stop, why


@once
def charge_pays(T, X, a, tgt, in_reach, reach, mv, mv2, prep, pap):
    """The default play Charges (+10 Offence, +2 damage) when the charge lands within its
    2 AP, as soon as a walking attack could, and nothing it prepared is lost; not at a
    target that can make Attacks of Opportunity: a charger keeps moving (at least 1 m an
    AP) and is struck first. A charge under way is carried through."""
    K = T[0]
    S, D = X[0], X[1]
    if prep == CHARGE and pap > 0:
        return True
    if tgt < 0 or in_reach or D[a, tgt] - reach < 1 or (prep == ATTACK and pap > 0):
        return False
    if K[tgt, K_REACT_AOO] != 0 or S[tgt, S_READY] == A.READY_OPPORTUNITY:
        return False
    return charge_lands(T, X, a, tgt, reach, mv, mv2)


@once
def charge_lands(T, X, a, t, reach, mv, mv2):
    """Whether a Charge's straight line brings t within a's reach inside the charge's
    movement (the attack's AP move too where the rule option says so)."""
    S = X[0]
    charge_reach = mv + (mv2 if T[2][R_CHARGE_MOVES_ATTACK] else 0)
    ddx, ddy = grid.sign(S[t, S_X] - S[a, S_X]), grid.sign(S[t, S_Y] - S[a, S_Y])
    return grid.line_steps(S[a, S_X], S[a, S_Y], ddx, ddy, S[t, S_X], S[t, S_Y], reach, charge_reach) > 0


@once
def _guard(T, X, G, seed, a, in_reach, reach, shoots, d, rng, prep, pap):
    """Hold ground; strike what comes into reach, else keep an action readied. A readied
    Attack of Opportunity is kept while an enemy in reach still has to move in."""
    K = T[0]
    S, D = X[0], X[1]
    want = K[a, K_READY_PREF]
    ready_now = S[a, S_READY]
    any_near, any_coming = False, False
    for j in range(S.shape[0]):
        if A.is_enemy(K, a, j) and S[j, S_STATUS] == A.STANDING and D[a, j] <= reach:
            any_near = True
            if D[a, j] > 1 or S[j, S_PREP_ACTION] == CHARGE:
                any_coming = True
    holding = ready_now == A.READY_OPPORTUNITY or (prep == OPPORTUNITY and pap > 0)
    keep_ready = holding and any_coming and want == A.READY_OPPORTUNITY
    threat_near = any_near and not keep_ready
    if threat_near and not in_reach:
        S[a, S_TARGET] = nearest_within(T, X, G, seed, a, reach, 2)  # keep a target still in reach
    if threat_near or (shoots and d <= rng):
        return ATTACK, NO_MOVE
    if want != A.READY_NONE and ready_now != want:
        return (BLOCK if want == A.READY_BLOCK else OPPORTUNITY), NO_MOVE
    return HOLD, NO_MOVE


@once
def grapple_pays(PK, a, b):
    """Engage only when the contested Athletics check is at least as likely won as not
    (the engager must beat the defender: a tie fails, or is rolled again under
    `grapple_ties: reroll`), counting the faces of both dice."""
    T, X = unpack(PK)
    K, R = T[0], T[2]
    die = R[R_ATTACK_DIE]
    diff = A.grapple_mod(K, R, a, True) - A.grapple_mod(K, R, b, False)
    wins = ties = 0
    for x in range(1, die + 1):
        # y with x + diff > y, and y == x + diff, among 1..die
        wins += min(max(x + diff - 1, 0), die)
        ties += 1 if 1 <= x + diff <= die else 0
    losses = die * die - wins - ties
    return wins >= losses if R[R_GRAPPLE_REROLL] else wins >= losses + ties


@once
def _scripted(PK, G, seed, a, desired, move, goal, stop, why, reach, rng, melee_now, nearest):
    T, X = unpack(PK)
    K, COND = T[0], T[3]
    OP, ARG, CONST, RCODE, RACTION, RTARGET, RFIRST = T[7], T[8], T[9], T[10], T[11], T[12], T[13]
    S, OBS, STACK = X[0], X[9], X[10]
    observe(X[XP], G, a, nearest)
    r = policy_vm.first_rule(OP, ARG, CONST, RCODE, RFIRST, a, OBS, STACK)
    if r < 0:
        return desired, move, goal, stop, why
    action = RACTION[r]
    mode = RTARGET[r] if RTARGET[r] >= 0 else K[a, K_TARGET_MODE]
    retarget = mode != K[a, K_TARGET_MODE]
    if retarget:
        S[a, S_TARGET] = pick_target(X[XP], G, seed, a, mode)
        goal = S[a, S_TARGET]
    if action != desired or retarget:
        why = E.WHY_RULE
        if action == CHARGE:
            move = LINE
        elif action == STEP_BACK:
            move = AWAY
        elif action == ATTACK or action == RUN or action == GRAPPLE:
            move = TOWARD
        else:
            move = NO_MOVE
        stop = 1 if action == GRAPPLE else (reach if melee_now else rng)
        goal = nearest if action == STEP_BACK else S[a, S_TARGET]
    desired = action
    # Conditions bind scripted rules too: a Held or Pinned creature begins nothing and
    # one that may not move stays put, whatever its rules say.
    if not A.cond_allows(S, COND, a, A.C_BEGINS) and not no_prep(desired):
        desired = HOLD
    if not A.cond_allows(S, COND, a, A.C_MOVES) or goal < 0:
        move = NO_MOVE
    return desired, move, goal, stop, why
