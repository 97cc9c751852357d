"""A blow in the Lifeforce kernel: conditions, the four Defences, stunts, damage, Shield
Block, Attacks of Opportunity, going down.

Tables arrive as two tuples: `T` the scenario (K combatants, W weapons, R rule options,
COND conditions, SBW Strength Benefit per combatant and weapon, COSTS stunt costs per
table, PRIO stunt buying orders) and `X` one skirmish's scratch (S state, D distances,
Q pending Attack-of-Opportunity scans, BOUGHT stunts of the blow, RU roll-off
uniforms, FOCUS per side, CAND candidates, HEALTH, DIST, OBS, STACK). G holds
(skirmish, round, phase, tracing).
"""
from __future__ import annotations

import numpy as np

from sim import keyed, targeting
from sim.events import emit
from sim.rulesets.lifeforce import kgrid as grid
from sim.rulesets.lifeforce import ktrace as E
from sim.rulesets.lifeforce import kstunts
from sim.rulesets.lifeforce.kfacts import (  # noqa: F401 (the kernel's steps read them as katt's)
    C_BEGINS, C_MELEE, C_MOVES, C_OFFENCE, C_RANGED, DEAD, DS_BONUS, FLED, GRAPPLING, HELD, N_STUNTS, PINNED,
    ST_DISARM, ST_DS, ST_DUAL, ST_MAJOR, ST_MINOR, ST_PRONE, ST_RAPID, ST_SEIZE, ST_SKIRMISH, ST_THREATEN, STANDING,
    UNCONSCIOUS, applicable, cond_allows, cond_mask, cond_sum, flat_footed, is_enemy, mask_sum, melee_weapon)
from sim.rulesets.lifeforce import tables as TB
from sim.rulesets.lifeforce.kpack import XP, context, unpack
from sim.rulesets.lifeforce.layout import (
    K_ARMOR, K_DODGE, K_HAS_SHIELD, K_HELD_W, K_INTIMIDATE, K_OFFENCE, K_REACT_AOO, K_REACT_BLOCK,
    K_REFLEX, K_STUNT_EV, K_SH_BONUS, K_SH_COUNT, K_SH_SIDES, K_WILL, K_GENERATES,
    K_ATHLETICS,
    R_ATTACK_DIE, R_AT_ZERO_DEAD, R_BLOCK_POSSIBLE, R_CRIT_BEFORE, R_DS_DEFENCES, R_DUAL_MIN_COST,
    R_INITIATOR_D100, R_METRIC, R_REACTION_MODE, R_SKIRMISH_CELLS, R_STUNT_STEP, R_THREATEN_PHASES,
    R_WIDTH, R_HEIGHT, R_GRAPPLE_BONUS,
    S_ATTACKS, S_BLOCKS, S_BUY0, S_CONTESTING, S_DEALT, S_DISARMED, S_DOMINANT, S_DOWN_ROUND, S_DS, S_HITS,
    S_HP, S_LOADED, S_NATT, S_NBLK, S_OPP, S_PARTNER, S_PRONE, S_REACTION_LEFT, S_READY, S_SEIZE, S_SPOINTS,
    S_STATUS, S_STUNTED, S_TAKEN, S_THREAT_BY, S_THREAT_LEFT, S_TRACK,
    W_AP, W_ARMOURED, W_D_BONUS, W_D_COUNT, W_D_SIDES, W_RANGE, W_REACH, W_SKILL, W_STRIKE, W_TABLE)
from sim.jit import once

(SITE_ROLLOFF, SITE_ATTACK, SITE_DAMAGE, SITE_SHIELD, SITE_STUNT_CHECK, SITE_GRAPPLE, SITE_TARGET, SITE_PLACE,
 SITE_DUAL) = range(1, 10)
READY_NONE, READY_BLOCK, READY_OPPORTUNITY = 0, 1, 2
VERB_ATTACK, VERB_CHARGE, VERB_STRIKE, VERB_DUAL = range(4)
TRIGGER_MOVES, TRIGGER_SHOOTS, TRIGGER_STEPS = range(3)
Q_MOVER, Q_TRIGGER, Q_DIST = 0, 1, 2  # a pending scan: the mover, what it did, then each creature's distance

# A literal argument (0, True, a module constant) makes Numba compile a step again for
# that value: calls pass np.int64 / np.bool_ so each step compiles once.


@once
def can_react(K, R, COND, S, who, block):
    """(by a readied action, by the Reaction) for a Shield Block or an Attack of Opportunity."""
    mode = R[R_REACTION_MODE]  # 0 both, 1 reaction only, 2 ap only
    readied = S[who, S_READY] == (READY_BLOCK if block else READY_OPPORTUNITY) and mode != 1
    trained = K[who, K_REACT_BLOCK] if block else K[who, K_REACT_AOO]
    reaction = (not readied) and trained != 0 and S[who, S_REACTION_LEFT] != 0 and mode != 2
    if block and K[who, K_HAS_SHIELD] == 0:
        readied = False
    free = S[who, S_CONTESTING] == 0 and cond_allows(S, COND, who, C_BEGINS)
    return readied and free, reaction and free


@once
def end_grapple(S, who):
    p = S[who, S_PARTNER]
    S[who, S_PARTNER], S[who, S_TRACK], S[who, S_DOMINANT] = -1, 0, 0
    if p >= 0:
        S[p, S_PARTNER], S[p, S_TRACK], S[p, S_DOMINANT] = -1, 0, 0
    # `contesting` stays: whoever contested this phase does nothing else in it.


@once
def knock_down(R, S, G, who, ev, cnt):
    if S[who, S_HP] <= 0 and S[who, S_STATUS] == STANDING:
        dead = R[R_AT_ZERO_DEAD] != 0
        S[who, S_STATUS] = DEAD if dead else UNCONSCIOUS
        S[who, S_DOWN_ROUND] = G[1]
        end_grapple(S, who)
        if G[3]:
            emit(ev, cnt, E.EV_DOWN, G[1], who, S[who, S_HP], 1 if dead else 0, 0, 0, 0)


@once
def times_half(value, mult2):
    """value x mult2 / 2 truncated toward zero (criticals: 1.5 is 3/2, 2 is 4/2)."""
    v = value * mult2
    return v // 2 if v >= 0 else -((-v) // 2)


@once
def _second_target(T, X, G, seed, att, tgt, w):
    """Dual Strike: another standing enemy within 1 square of the target and in reach or
    range, at random among them, or -1."""
    K, W = T[0], T[1]
    S, D, CAND, HEALTH, DIST = X[0], X[1], X[6], X[7], X[8]
    for j in range(S.shape[0]):
        CAND[j] = (j != tgt and is_enemy(K, att, j) and S[j, S_STATUS] == STANDING and D[tgt, j] <= 1
                   and D[att, j] <= W[w, W_STRIKE])
        HEALTH[j], DIST[j] = 0.0, 0.0
    u = keyed.uniform(seed, G[0], G[1], SITE_DUAL, att, S[att, S_NATT]) if targeting.count(CAND) > 1 else 0.0
    return targeting.choose(targeting.RANDOM, CAND, HEALTH, DIST, -1, u)


@once
def buy_stunts(T, X, G, seed, att, tgt, w, points, total):
    """Spend stunt points by worth (kstunts) or in the buying order; returns Dual Strike's
    second target or -1."""
    K, W, R, COSTS, PRIO = T[0], T[1], T[2], T[5], T[6]
    S, BOUGHT = X[0], X[3]
    for s in range(N_STUNTS):
        BOUGHT[s] = 0
    second = -1
    if R[R_DUAL_MIN_COST] > 0 and points >= R[R_DUAL_MIN_COST]:
        second = _second_target(T, X, G, seed, att, tgt, w)
    if K[att, K_STUNT_EV]:
        kstunts.buy_best_called(X[XP], att, tgt, w, points, total, second)
        return second if BOUGHT[ST_DUAL] > 0 else -1
    left = points
    table = W[w, W_TABLE]
    for j in range(PRIO.shape[1]):
        s = PRIO[att, j]
        if s < 0:
            continue
        cost = COSTS[table, s]
        if cost <= 0 or left < cost or BOUGHT[s] > 0 or not applicable(K, W, R, S, att, tgt, w, s, second):
            continue
        if (s == ST_MINOR or s == ST_MAJOR) and (BOUGHT[ST_MINOR] > 0 or BOUGHT[ST_MAJOR] > 0):
            continue
        times = left // cost if s == ST_SKIRMISH else 1
        BOUGHT[s] = times
        left -= times * cost
    return second if BOUGHT[ST_DUAL] > 0 else -1


@once
def _check_die(R, G, seed, att, ordinal, j):
    return keyed.die(R[R_ATTACK_DIE], seed, G[0], G[1], SITE_STUNT_CHECK, att, ordinal * 4 + j)


@once
def apply_stunts(T, X, G, seed, ev, cnt, att, tgt, w, total, ordinal):
    """Effects of the stunts in BOUGHT; a Skirmish step queues the Attacks of Opportunity it provokes."""
    K, W, R = T[0], T[1], T[2]
    S, D, Q, BOUGHT = X[0], X[1], X[2], X[3]
    if BOUGHT[ST_DS]:
        S[att, S_DS] = 1
    if BOUGHT[ST_RAPID]:
        S[att, S_LOADED] = 1
    if BOUGHT[ST_SEIZE]:
        S[att, S_SEIZE] = 1
    ds_tgt = DS_BONUS if S[tgt, S_DS] else 0
    initiator = R[R_INITIATOR_D100] != 0
    if BOUGHT[ST_DISARM]:
        # The target rolls an attack with what it holds; lower than our total drops it.
        tw = K[tgt, K_HELD_W]
        theirs = _check_die(R, G, seed, att, ordinal, 1) + W[tw, W_SKILL] + K[tgt, K_OFFENCE]
        drop = theirs < total
        if drop:
            S[tgt, S_DISARMED] = 1
        if G[3]:
            emit(ev, cnt, E.EV_DISARM, G[1], tgt, theirs, total, 1 if drop else 0, 0, 0)
    if BOUGHT[ST_THREATEN]:
        check = _check_die(R, G, seed, att, ordinal, 3) + K[att, K_INTIMIDATE] if initiator else total
        will = TB.DEFENCE_BASE + K[tgt, K_WILL] + (ds_tgt if R[R_DS_DEFENCES] == 0 else 0)
        ok = check > will
        if ok:
            S[tgt, S_THREAT_BY] = att
            S[tgt, S_THREAT_LEFT] = R[R_THREATEN_PHASES] + 1  # counted down at the end of this phase too
        if G[3]:
            emit(ev, cnt, E.EV_THREATEN, G[1], tgt, check, will, 1 if ok else 0, 0, 0)
    if BOUGHT[ST_PRONE]:
        check = _check_die(R, G, seed, att, ordinal, 0) + W[w, W_SKILL] + K[att, K_OFFENCE] if initiator else total
        # Flat-Footed loses the skill's bonus, not a penalty: a negative Reflex still counts.
        skill = min(K[tgt, K_REFLEX], 0) if flat_footed(K, G, tgt) else K[tgt, K_REFLEX]
        reflex = TB.DEFENCE_BASE + skill + (ds_tgt if R[R_DS_DEFENCES] != 1 else 0)
        ok = check > reflex
        if ok:
            S[tgt, S_PRONE] = 1
        if G[3]:
            emit(ev, cnt, E.EV_PRONE, G[1], tgt, check, reflex, 1 if ok else 0, 0, 0)
    if BOUGHT[ST_SKIRMISH]:
        for j in range(S.shape[0]):
            Q[0, Q_DIST + j] = D[att, j]  # staged: becomes a scan only if the step moved
        spent = grid.walk(S, X[15], att, tgt, BOUGHT[ST_SKIRMISH] * R[R_SKIRMISH_CELLS], np.int64(0), np.bool_(True),
                          R[R_METRIC], R[R_WIDTH], R[R_HEIGHT])
        if spent > 0:
            grid.refresh(S, D, att, R[R_METRIC])
            queue_scan(X[XP], att, np.int64(TRIGGER_STEPS))  # struck once this blow is over (attack, below)


@once
def queue_scan(PK, mover, trigger):
    """Queue the Attacks of Opportunity a move provokes; whether any enemy could strike.
    Q[0, Q_DIST:] holds the distances from each creature to the mover before it moved; as
    in the walk's own rule, a mover that ends deeper than the edge of a reach started its
    last step inside it."""
    T, X = unpack(PK)
    K, W = T[0], T[1]
    S, D, Q = X[0], X[1], X[2]
    n = Q[0, 0]
    if n + 1 >= Q.shape[0]:
        return False
    row = n + 1
    Q[row, Q_MOVER], Q[row, Q_TRIGGER] = mover, trigger
    anyone = False
    for j in range(S.shape[0]):
        start = Q[0, Q_DIST + j]
        reach = W[melee_weapon(K, S, j), W_REACH]
        passed = min(start, reach) if D[mover, j] < reach else start
        Q[row, Q_DIST + j] = passed
        if passed <= reach and is_enemy(K, mover, j) and S[j, S_STATUS] == STANDING:
            anyone = True
    if anyone:
        Q[0, 0] = n + 1
    return anyone


@once
def damage_dice(W, w, words, seed, G, att, ordinal):
    """The weapon's damage: up to three dice from words 1-3 of the attack's block, more
    from blocks of their own (SITE_DAMAGE, 64 numbers an attack)."""
    count, sides = W[w, W_D_COUNT], W[w, W_D_SIDES]
    if count > 3:
        return keyed.dice4(count, sides, W[w, W_D_BONUS], seed, G[0], G[1], SITE_DAMAGE, att, ordinal * 64)
    total = W[w, W_D_BONUS]
    for j in range(count):
        total += keyed.die_word(words[1 + j], sides, seed, G[0], G[1], SITE_ATTACK, att, 4 * ordinal + 1 + j)
    return total


@once
def strike(T, X, G, seed, ev, cnt, att, tgt, w, off_bonus, dmg_bonus, stunts, verb):
    """One attack: roll, stunts, damage, Shield Block. Returns Dual Strike's second target or -1."""
    K, W, R, COND, SBW = T[0], T[1], T[2], T[3], T[4]
    S, BOUGHT = X[0], X[3]
    melee = W[w, W_RANGE] == 0
    skill = min(K[tgt, K_DODGE], 0) if flat_footed(K, G, tgt) else K[tgt, K_DODGE]
    defence = TB.DEFENCE_BASE + skill + cond_sum(S, COND, tgt, C_MELEE if melee else C_RANGED)
    offence = W[w, W_SKILL] + K[att, K_OFFENCE] + off_bonus + cond_sum(S, COND, att, C_OFFENCE)
    ordinal = S[att, S_NATT]
    S[att, S_NATT] = ordinal + 1
    # One block per attack: the attack die from word 0, up to three damage dice from words 1-3.
    words = keyed.block(seed, G[0], G[1], SITE_ATTACK, att, ordinal)
    roll = keyed.die_word(words[0], R[R_ATTACK_DIE], seed, G[0], G[1], SITE_ATTACK, att, 4 * ordinal)
    total = roll + offence
    hit = total > defence  # ties go to the defender
    points = 0
    if hit and stunts and K[att, K_GENERATES] and S[att, S_STUNTED] == 0:
        points = (total - defence) // R[R_STUNT_STEP]
    second = -1
    if points > 0:
        S[att, S_STUNTED] = 1
        second = buy_stunts(T, X, G, seed, att, tgt, w, points, total)
        for s in range(N_STUNTS):
            S[att, S_BUY0 + s] += BOUGHT[s]
    S[att, S_ATTACKS] += 1
    if G[3]:
        emit(ev, cnt, E.EV_ROLL, G[1], att, tgt, w * 8 + verb, roll, offence, defence)
        if points > 0:
            mask = 0
            for s in range(N_STUNTS):
                if BOUGHT[s]:
                    mask |= 1 << s
            emit(ev, cnt, E.EV_STUNTS, G[1], points, mask, BOUGHT[ST_SKIRMISH], 0, 0, 0)
    if hit:
        dice = damage_dice(W, w, words, seed, G, att, ordinal)
        rolled = max(dice, 0) + SBW[att, w] + dmg_bonus
        armour = max(K[tgt, K_ARMOR] - W[w, W_AP], 0) if W[w, W_ARMOURED] else 0
        mult2 = 2
        if points > 0:
            mult2 = 4 if BOUGHT[ST_MAJOR] else (3 if BOUGHT[ST_MINOR] else 2)
        if R[R_CRIT_BEFORE]:
            dmg = max(times_half(rolled, mult2) - armour, 0)
        else:
            dmg = times_half(max(rolled - armour, 0), mult2)
        shield = -1
        # The block is spent only on a blow that would hurt: one armour stops is let through.
        if R[R_BLOCK_POSSIBLE] and dmg > 0:
            by_ready, by_reaction = can_react(K, R, COND, S, tgt, True)
            if by_ready or by_reaction:
                nb = S[tgt, S_NBLK]
                S[tgt, S_NBLK] = nb + 1
                shield = max(keyed.dice(K[tgt, K_SH_COUNT], K[tgt, K_SH_SIDES], K[tgt, K_SH_BONUS], seed, G[0],
                                        G[1], SITE_SHIELD, tgt, nb * 64), 0)
                if by_ready:
                    S[tgt, S_READY] = READY_NONE
                else:
                    S[tgt, S_REACTION_LEFT] = 0
                S[tgt, S_BLOCKS] += 1
                dmg = max(dmg - shield, 0)
        S[att, S_HITS] += 1
        S[att, S_DEALT] += dmg
        S[tgt, S_TAKEN] += dmg
        S[tgt, S_HP] -= dmg
        if G[3]:
            emit(ev, cnt, E.EV_DAMAGE, G[1], dice, SBW[att, w], dmg_bonus, mult2, shield, dmg)
            emit(ev, cnt, E.EV_HPLEFT, G[1], tgt, S[tgt, S_HP], K[tgt, K_ARMOR], W[w, W_AP], W[w, W_ARMOURED], 0)
    if points > 0:
        S[att, S_SPOINTS] += points
        apply_stunts(T, X, G, seed, ev, cnt, att, tgt, w, total, ordinal)
    return second


@once
def attack(T, X, G, seed, ev, cnt, att, tgt, w, off_bonus, dmg_bonus, verb):
    """A full attack: the blow, its Dual Strike, who goes down, then the Attacks of
    Opportunity it provoked (a Skirmish step), each of them full attacks in turn."""
    _blow(X[XP], att, tgt, w, np.int64(off_bonus), np.int64(dmg_bonus), np.int64(verb))
    if X[2][0, 0] > 0:
        run_scans(X[XP])


@once
def _blow(PK, att, tgt, w, off_bonus, dmg_bonus, verb):
    T, X = unpack(PK)
    G, seed, ev, cnt = context(PK)
    R, S = T[2], X[0]
    # The strike is inlined once, its Dual Strike second blow a second pass of the loop:
    # a call of its own cost ~20 ns an attack, two copies twice the compile.
    second = -1
    victim, ob, db, stunts, v = tgt, off_bonus, dmg_bonus, True, verb
    for k in range(2):
        dual = strike(T, X, G, seed, ev, cnt, att, victim, w, ob, db, stunts, v)
        if k == 1:
            knock_down(R, S, G, second, ev, cnt)
            break
        second = dual
        if second < 0 or S[second, S_STATUS] != STANDING:
            break
        victim, ob, db, stunts, v = second, 0, 0, False, VERB_DUAL
    knock_down(R, S, G, tgt, ev, cnt)


@once
def run_scans(PK):
    """Work through queued scans: every enemy that had the mover in reach strikes, by its
    readied action or its Reaction, while both stand."""
    T, X = unpack(PK)
    G, _, ev, cnt = context(PK)
    K, W, R, COND = T[0], T[1], T[2], T[3]
    S, Q = X[0], X[2]
    head = 1
    while head <= Q[0, 0]:
        mover, trigger = Q[head, Q_MOVER], Q[head, Q_TRIGGER]
        for e in range(S.shape[0]):
            if not is_enemy(K, mover, e) or S[e, S_STATUS] != STANDING or S[mover, S_STATUS] != STANDING:
                continue
            wv = melee_weapon(K, S, e)
            if Q[head, Q_DIST + e] > W[wv, W_REACH]:
                continue
            by_ready, by_reaction = can_react(K, R, COND, S, e, False)
            if not (by_ready or by_reaction):
                continue
            if by_ready:
                S[e, S_READY] = READY_NONE
            else:
                S[e, S_REACTION_LEFT] = 0
            S[e, S_OPP] += 1
            if G[3]:
                emit(ev, cnt, E.EV_AOO, G[1], e, mover, 1 if by_ready else 0, trigger, 0, 0)
            _blow(X[XP], e, mover, wv, np.int64(0), np.int64(0), np.int64(VERB_STRIKE))
        head += 1
    Q[0, 0] = 0


@once
def opportunity_attacks(T, X, G, seed, ev, cnt, mover, trigger):
    """Attacks of Opportunity on `mover`, from the distances staged in Q[0, Q_DIST:]."""
    if queue_scan(X[XP], mover, np.int64(trigger)):
        run_scans(X[XP])


@once
def grapple_mod(K, R, c, initiator):
    """Athletics, plus the generalised Offence for whoever `grapple_offence_bonus` gives it."""
    bonus = R[R_GRAPPLE_BONUS]  # 0 both, 1 initiator, 2 none
    return K[c, K_ATHLETICS] + (K[c, K_OFFENCE] if bonus == 0 or (bonus == 1 and initiator) else 0)
