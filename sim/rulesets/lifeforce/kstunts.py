"""The default stunt buyer: with the points a hit earned, the affordable combination of
stunts worth the most against this target, by an exact enumeration of the subsets of
the stunts that could help (the table has 10 rows and a hit earns a few points).

Worth is counted in expected damage: a critical's extra damage this blow, Dual Strike's
expected blow on the second enemy, and for the control stunts the damage they keep off
the attacker or add to its next blows (Knock Prone: the action points the target spends
standing up and the Prone penalties for a blow each way; Disarm: the action points it
spends picking its weapon up, or the difference to bare hands for a few blows when it
cannot), each times its chance of working. Defensive Stance is worth its Defence bonus
against half a blow of the target's before the attacker's next turn, Rapid Reload the
reload it saves, Seize the Initiative a quarter of a blow. Threaten (the target already
fights someone or the attacker) and Skirmish (a step) have no worth in damage and are
left to explicit buying orders. `damage_table` tabulates the damage of a hit exactly
over the dice.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.lifeforce import kfacts as A
from sim.rulesets.lifeforce import tables as TB
from sim.rulesets.lifeforce.kpack import context, unpack
from sim.rulesets.lifeforce.layout import (
    K_ARMOR, K_DODGE, K_HELD_W, K_OFFENCE, K_RANGED_W, K_REFLEX, K_UNARMED_W,
    R_ATTACK_DIE, R_DS_DEFENCES, R_INITIATOR_D100, R_LOADING_AP, R_RECOVER_AP, R_STAND_AP,
    S_DISARMED, S_DS, S_HP,
    W_AP, W_ARMOURED, W_D_BONUS, W_D_COUNT, W_D_SIDES, W_RANGE, W_REACH, W_SKILL, W_TABLE)
from sim.jit import once

MULTS = (2, 3, 4)  # twice the damage multiplier: none, Minor Critical, Major Critical
DS_BLOWS = 0.5  # the target's blows expected before the attacker's next turn
SEIZE_WORTH = 0.25  # blows' worth of acting first next round
DISARM_BLOWS = 3  # blows a creature that cannot pick its weapon up fights bare-handed
C_PRONE, C_DS = TB.COND["prone"], TB.COND["defensive_stance"]


def _dice_pmf(count: int, sides: int, bonus: int) -> tuple[np.ndarray, np.ndarray]:
    pmf = np.ones(1)
    for _ in range(count):
        pmf = np.convolve(pmf, np.full(sides, 1.0 / sides))
    return np.arange(len(pmf)) + count + bonus, pmf


def _times_half(v: np.ndarray, mult2: int) -> np.ndarray:
    x = v * mult2
    return np.where(x >= 0, x // 2, -((-x) // 2))


def damage_table(K: np.ndarray, W: np.ndarray, SBW: np.ndarray,
                 crit_before: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """E[damage of one hit] without and with each critical, as (EV, EVR, EVC): the hit of
    attacker a with weapon w on target t is worth EV[EVR[a, w], EVC[t] * 3 + m].

    A hit's damage reads the attacker only through SBW[a, w] and the target only through
    its Armor, so EV has a row per distinct (dice, armour piercing, Strength Benefit) and
    a column triple per distinct Armor: a few of each in a battle of hundreds, where one
    row per attacker and weapon and a column per target grew as C^3 (a 9.66 GiB table at
    300 a side)."""
    C, nw = K.shape[0], W.shape[0]
    profile = W[:, [W_D_COUNT, W_D_SIDES, W_D_BONUS, W_AP, W_ARMOURED]]
    kinds, w_kind = np.unique(profile, axis=0, return_inverse=True)
    w_kind = w_kind.reshape(-1).astype(np.int64)
    sb = np.asarray(SBW, dtype=np.int64).reshape(C, nw)
    lo = int(sb.min()) if sb.size else 0
    span = int(sb.max()) - lo + 1 if sb.size else 1
    rows, evr = np.unique(w_kind[None, :] * span + (sb - lo), return_inverse=True)
    armours, evc = np.unique(np.asarray(K[:, K_ARMOR], dtype=np.int64), return_inverse=True)
    out = np.zeros((len(rows), 3 * len(armours)))
    for r, key in enumerate(rows.tolist()):
        count, sides, bonus, ap, armoured = (int(v) for v in kinds[key // span])
        faces, pmf = _dice_pmf(count, sides, bonus)
        rolled = np.maximum(faces, 0) + key % span + lo
        for j, armor in enumerate(armours.tolist()):
            armour = max(armor - ap, 0) if armoured else 0
            for m, mult2 in enumerate(MULTS):
                if crit_before:
                    dmg = np.maximum(_times_half(rolled, mult2) - armour, 0)
                else:
                    dmg = _times_half(np.maximum(rolled - armour, 0), mult2)
                out[r, j * 3 + m] = float(pmf @ dmg)
    return out, evr.reshape(C, nw).astype(np.int64), evc.reshape(C).astype(np.int64)


def expected_damage(K: np.ndarray, W: np.ndarray, SBW: np.ndarray, crit_before: bool) -> np.ndarray:
    """damage_table spread over every attacker, weapon and target: a (C * weapons, C * 3)
    table, row a * weapons + w, column t * 3 + m. For reading small battles only: it grows
    as C^3."""
    EV, EVR, EVC = damage_table(K, W, SBW, crit_before)
    cols = (EVC[:, None] * 3 + np.arange(3)[None, :]).reshape(-1)
    return EV[EVR.reshape(-1)][:, cols]


@once
def hit_chance(die, offence, defence):
    """P(roll of 1..die + offence > defence)."""
    need = defence - offence
    if need <= 0:
        return 1.0
    if need >= die:
        return 0.0
    return (die - need) / die


@once
def _chance(T, G, S, a, b, w):
    K, W, COND = T[0], T[1], T[3]
    melee = W[w, W_RANGE] == 0
    skill = min(K[b, K_DODGE], 0) if A.flat_footed(K, G, b) else K[b, K_DODGE]
    defence = TB.DEFENCE_BASE + skill + A.cond_sum(S, COND, b, A.C_MELEE if melee else A.C_RANGED)
    offence = W[w, W_SKILL] + K[a, K_OFFENCE] + A.cond_sum(S, COND, a, A.C_OFFENCE)
    return hit_chance(T[2][R_ATTACK_DIE], offence, defence)


@once
def _weapon_on(T, X, a, b, w_melee):
    K, W = T[0], T[1]
    S, D = X[0], X[1]
    rw = K[a, K_RANGED_W]
    if D[a, b] > W[w_melee, W_REACH] and rw >= 0 and S[a, S_DISARMED] == 0:
        return rw
    return w_melee


@once
def per_blow(T, X, G, a, b, w):
    """a's expected damage per attack on b with weapon w: hit chance times damage of a hit."""
    return _chance(T, G, X[0], a, b, w) * T[19][T[20][a, w], T[21][b] * 3]


@once
def worth(T, X, G, att, tgt, w, total, second, s):
    """Expected damage stunt s is worth on this hit (0 where it cannot help)."""
    K, W, R, COND, EV, EVR, EVC = T[0], T[1], T[2], T[3], T[19], T[20], T[21]
    S = X[0]
    die = R[R_ATTACK_DIE]
    ours_row, on_tgt = EVR[att, w], EVC[tgt] * 3
    e0 = EV[ours_row, on_tgt]
    if s == A.ST_MINOR:
        return EV[ours_row, on_tgt + 1] - e0
    if s == A.ST_MAJOR:
        return EV[ours_row, on_tgt + 2] - e0
    if s == A.ST_DUAL:
        return per_blow(T, X, G, att, second, w) if second >= 0 else 0.0
    ours = per_blow(T, X, G, att, tgt, w)
    if s == A.ST_RAPID:
        return R[R_LOADING_AP] / 2.0 * ours
    if s == A.ST_SEIZE:
        return SEIZE_WORTH * ours
    tw = _weapon_on(T, X, tgt, att, A.melee_weapon(K, S, tgt))
    theirs_hit = EV[EVR[tgt, tw], EVC[att] * 3]
    theirs = _chance(T, G, S, tgt, att, tw) * theirs_hit
    if s == A.ST_DS:
        return COND[C_DS, A.C_MELEE] / die * theirs_hit * DS_BLOWS
    if S[tgt, S_HP] <= e0:
        return 0.0  # the blow is expected to drop it: controlling it is worth nothing
    initiator = R[R_INITIATOR_D100] != 0
    if s == A.ST_PRONE:
        skill = min(K[tgt, K_REFLEX], 0) if A.flat_footed(K, G, tgt) else K[tgt, K_REFLEX]
        ds = A.DS_BONUS if S[tgt, S_DS] and R[R_DS_DEFENCES] != 1 else 0
        reflex = TB.DEFENCE_BASE + skill + ds
        if initiator:
            p = hit_chance(die, W[w, W_SKILL] + K[att, K_OFFENCE], reflex)
        else:
            p = 1.0 if total > reflex else 0.0
        penalties = (-COND[C_PRONE, A.C_OFFENCE] * theirs_hit - COND[C_PRONE, A.C_MELEE] * e0) / die
        return p * (R[R_STAND_AP] / 2.0 * theirs + penalties)
    if s == A.ST_DISARM:
        held = K[tgt, K_HELD_W]
        need = total - W[held, W_SKILL] - K[tgt, K_OFFENCE]  # the target drops it rolling below this
        p = min(max(need - 1, 0), die) / die
        if R[R_RECOVER_AP] > 0:
            return p * R[R_RECOVER_AP] / 2.0 * theirs
        bare = per_blow(T, X, G, tgt, att, K[tgt, K_UNARMED_W])
        return p * max(theirs - bare, 0.0) * DISARM_BLOWS
    return 0.0  # Threaten, Skirmish


@once
def buy_best(T, X, G, att, tgt, w, points, total, second):
    """Fill BOUGHT with the affordable combination of helping stunts worth the most (at
    most one critical; ties go to the first subset found, counting down)."""
    K, W, R, COSTS = T[0], T[1], T[2], T[5]
    S, BOUGHT, SV = X[0], X[3], X[14]
    table = W[w, W_TABLE]
    helping = 0
    for s in range(A.N_STUNTS):
        cost = COSTS[table, s]
        SV[s] = 0.0
        if 0 < cost <= points and A.applicable(K, W, R, S, att, tgt, w, s, second):
            v = worth(T, X, G, att, tgt, w, total, second, s)
            if v > 1e-9:
                SV[s] = v
                helping |= 1 << s
    best, best_value = 0, 0.0
    sub = helping
    while sub > 0:
        cost, value = 0, 0.0
        for s in range(A.N_STUNTS):
            if sub >> s & 1:
                cost += COSTS[table, s]
                value += SV[s]
        both = (sub >> A.ST_MINOR & 1) and (sub >> A.ST_MAJOR & 1)
        if cost <= points and not both and value > best_value:
            best, best_value = sub, value
        sub = (sub - 1) & helping
    for s in range(A.N_STUNTS):
        BOUGHT[s] = best >> s & 1


# Typed once, inlined by LLVM into the general strike (katt.buy_stunts) and the duel loop
# (kduel.py) alike: inlined in Numba's IR, it cost some 45 CPU-s of compile in the strike
# and 17 more in the duel loop; called, 3% of a grappler_vs_duellist skirmish.
@once
def buy_best_called(PK, att, tgt, w, points, total, second):
    """buy_best on the packed tables and scratch (kpack): fills BOUGHT."""
    T, X = unpack(PK)
    buy_best(T, X, context(PK)[0], att, tgt, w, points, total, second)
