"""What a blow and its stunts both read of a Lifeforce creature: its conditions, its weapon
in hand, whose side it is on, and which stunts can apply (katt resolves the blow,
kstunts values the stunts; both import these, so neither imports the other).
"""
from __future__ import annotations

from sim.rulesets.lifeforce import tables as TB
from sim.rulesets.lifeforce.layout import (
    K_HELD_W, K_MELEE_W, K_SIDE, K_SURPRISED, K_UNARMED_W, R_SEIZE_ON, R_SKIRMISH_CELLS,
    S_DISARMED, S_DOMINANT, S_DS, S_HAST, S_PRONE, S_SLOW, S_THREAT_BY, S_TRACK, W_LOADING, W_UNARMED)
from sim.jit import once

STANDING, UNCONSCIOUS, DEAD, FLED = 0, 1, 2, 3
C_OFFENCE, C_MELEE, C_RANGED, C_MOVES, C_BEGINS = range(5)
GRAPPLING, HELD, PINNED = TB.GRAPPLING, TB.HELD, TB.PINNED
ST_RAPID, ST_SKIRMISH, ST_DS, ST_DISARM, ST_MINOR, ST_THREATEN, ST_PRONE, ST_DUAL, ST_MAJOR, ST_SEIZE = (
    TB.STUNT[n] for n in ("rapid_reload", "skirmish", "defensive_stance", "disarm", "minor_critical", "threaten",
                          "knock_prone", "dual_strike", "major_critical", "seize_the_initiative"))
DS_BONUS = TB.CONDITIONS["defensive_stance"][1]
N_STUNTS = len(TB.STUNTS)


@once
def cond_mask(S, c):
    """Bit k set while c has condition k (tables.CONDITION_NAMES order), all nine at once:
    the usual creature, with none, costs one test in cond_sum and cond_allows."""
    m = 1 if S[c, S_PRONE] != 0 else 0
    m |= 2 if S[c, S_HAST] > 0 else 0
    m |= 4 if S[c, S_SLOW] > 0 else 0
    m |= 8 if S[c, S_DS] != 0 else 0
    track, under = S[c, S_TRACK], S[c, S_DOMINANT] == 0
    m |= 16 if track > 0 else 0
    m |= 32 if track == HELD and under else 0
    m |= 64 if track == PINNED and under else 0
    m |= 128 if S[c, S_THREAT_BY] >= 0 else 0
    m |= 256 if S[c, S_DISARMED] != 0 else 0
    return m


@once
def mask_sum(COND, m, col):
    """The column's total over the conditions whose bits are set in m."""
    total = 0
    k = 0
    while m:
        if m & 1:
            total += COND[k, col]
        m >>= 1
        k += 1
    return total


@once
def cond_sum(S, COND, c, col):
    return mask_sum(COND, cond_mask(S, c), col)


@once
def cond_allows(S, COND, c, col):
    """Moves / begins: no condition c has forbids it."""
    m = cond_mask(S, c)
    k = 0
    while m:
        if m & 1 and COND[k, col] == 0:
            return False
        m >>= 1
        k += 1
    return True


@once
def melee_weapon(K, S, c):
    return K[c, K_UNARMED_W] if S[c, S_DISARMED] else K[c, K_MELEE_W]


@once
def is_enemy(K, a, b):
    return K[a, K_SIDE] != K[b, K_SIDE]


@once
def flat_footed(K, G, c):
    return K[c, K_SURPRISED] != 0 and G[1] == 1


@once
def applicable(K, W, R, S, att, tgt, w, s, second):
    if s == ST_RAPID:
        return W[w, W_LOADING] != 0
    if s == ST_SKIRMISH:
        return R[R_SKIRMISH_CELLS] > 0
    if s == ST_DISARM:
        return S[tgt, S_DISARMED] == 0 and W[K[tgt, K_HELD_W], W_UNARMED] == 0
    if s == ST_THREATEN:
        return S[tgt, S_THREAT_BY] != att
    if s == ST_PRONE:
        return S[tgt, S_PRONE] == 0
    if s == ST_DUAL:
        return second >= 0
    if s == ST_SEIZE:
        return R[R_SEIZE_ON] != 0
    if s == ST_DS:
        return S[att, S_DS] == 0
    return True
